"""Which format for the responsive variants: bytes, encode time and fidelity of JPEG, WebP and AVIF on the test
photos, at the widths the server makes, through the system's libvips (the library the server uses).

Each photo is decoded, turned upright and shrunk as the server does; each width is then encoded by each format at
its usual web setting (JPEG Q 82 as the server's JPEGs, WebP Q 80, AVIF Q 50, the libvips default), ten times.
Fidelity: PSNR of the decoded file against the pixels that were encoded (higher is closer).
Usage: python3 Benchmarks/encodings.py  (needs pyvips: pip install pyvips)"""
import math
import os
import platform
import statistics
import sys
import time
from pathlib import Path

import pyvips

PHOTOS = Path(__file__).resolve().parent.parent / "Tests" / "TestFixtures" / "photos"
NAMES = ["phone-gps-rotated.jpg", "hubble.jpg", "rocket.jpg", "astronaut.jpg"]
WIDTHS = [320, 640, 1080, 1440]
FORMATS = {
    "JPEG Q82": lambda image: image.jpegsave_buffer(Q=82, strip=True, optimize_coding=True, interlace=True),
    "WebP Q80": lambda image: image.webpsave_buffer(Q=80, strip=True, effort=4),
    "AVIF Q50": lambda image: image.heifsave_buffer(Q=50, strip=True, compression="av1", effort=4),
}


def psnr(reference: pyvips.Image, encoded: bytes) -> float:
    decoded = pyvips.Image.new_from_buffer(encoded, "").colourspace("srgb")[0:3]
    mse = ((reference.cast("float") - decoded.cast("float")) ** 2).avg()
    return 99.0 if mse == 0 else 10 * math.log10(255 * 255 / mse)


def main() -> None:
    totals = {name: [0, 0.0] for name in FORMATS}
    print("| photo | width | " + " | ".join(f"{f} KiB | {f} ms | {f} PSNR" for f in FORMATS) + " |")
    print("|---|---|" + "---|---|---|" * len(FORMATS))
    for photo in NAMES:
        data = (PHOTOS / photo).read_bytes()
        upright = pyvips.Image.thumbnail_buffer(data, 1440, height=100000, size="down").colourspace("srgb")[0:3]
        upright = upright.copy_memory()
        for width in WIDTHS:
            if width > upright.width:
                continue
            image = upright.thumbnail_image(width, height=100000).copy_memory()
            cells = []
            for name, encode in FORMATS.items():
                times = []
                for _ in range(10):
                    start = time.perf_counter()
                    encoded = encode(image)
                    times.append((time.perf_counter() - start) * 1000)
                ms = statistics.median(times)
                totals[name][0] += len(encoded)
                totals[name][1] += ms
                cells.append(f"{len(encoded) / 1024:.1f} | {ms:.1f} | {psnr(image, encoded):.1f}")
            print(f"| {photo} | {width}×{image.height} | " + " | ".join(cells) + " |")
    base_bytes, base_ms = totals["JPEG Q82"]
    print()
    print("| format | bytes, all variants | vs JPEG | encode ms, all variants | vs JPEG |")
    print("|---|---|---|---|---|")
    for name, (size, ms) in totals.items():
        print(f"| {name} | {size / 1024:.0f} KiB | {size / base_bytes:.2f} | {ms:.0f} | {ms / base_ms:.2f} |")
    print()
    print(f"libvips {pyvips.version(0)}.{pyvips.version(1)}, {os.cpu_count()} cores, {platform.processor() or platform.machine()}")


if __name__ == "__main__":
    sys.exit(main())
