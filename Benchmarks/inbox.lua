-- Replays pre-signed inbox requests (Benchmarks/federation_peers.py sign): Likes of random posts by 100 remote
-- people, each undone 512 requests later, as another server's deliveries would arrive at the shared inbox.
local lines = {}
for line in io.lines(os.getenv("SIGNED")) do lines[#lines + 1] = line end
local next_line = 0
local wrapped = false
request = function()
  next_line = next_line + 1
  if next_line > #lines then
    next_line = 1
    if not wrapped then
      wrapped = true
      io.stderr:write("inbox.lua: the signed requests ran out and start again (repeats change nothing)\n")
    end
  end
  local body, date, digest, signature = lines[next_line]:match("^(.-)\t(.-)\t(.-)\t(.-)$")
  return wrk.format("POST", "/inbox", {
    ["Content-Type"] = "application/activity+json", ["Date"] = date, ["Digest"] = digest,
    ["Signature"] = signature,
  }, body)
end
