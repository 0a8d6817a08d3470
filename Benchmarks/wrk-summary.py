"""Reads wrk's --latency report on standard input and prints "req/s p50_ms p99_ms non_2xx"."""
import re
import sys

text = sys.stdin.read()


def ms(label: str) -> float:
    match = re.search(r"^\s*" + label + r"\s+([\d.]+)(us|ms|s)\s*$", text, re.M)
    value, unit = float(match.group(1)), match.group(2)
    return value / 1000 if unit == "us" else value * 1000 if unit == "s" else value


rps = float(re.search(r"Requests/sec:\s+([\d.]+)", text).group(1))
errors = re.search(r"Non-2xx or 3xx responses: (\d+)", text)
print(f"{rps:.0f} {ms('50%'):.2f} {ms('99%'):.2f} {errors.group(1) if errors else 0}")
