-- GET a home-timeline page of 20 as one of the benchmark users (tokens from $TOKENS).
local tokens = {}
for line in io.lines(os.getenv("TOKENS")) do tokens[#tokens + 1] = line end
local counter = 0
request = function()
  counter = counter + 1
  local token = tokens[(counter % #tokens) + 1]
  return wrk.format("GET", "/api/v1/timeline?limit=20", { ["Authorization"] = "Bearer " .. token })
end
dofile("Benchmarks/paced.lua")
