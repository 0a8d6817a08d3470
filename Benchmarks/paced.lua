-- With PACE_MS set, each connection pauses between requests (a random 0 to 2 x PACE_MS ms, so that connections do
-- not fall into step): a load below saturation, where latency measures the server rather than the queue of 64
-- waiting connections.
local pace = tonumber(os.getenv("PACE_MS") or "")
if pace then delay = function() return math.random(0, 2 * pace) end end
