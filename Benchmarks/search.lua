-- GET a people search for $QUERY (URL-encoded) as one of the benchmark users (tokens from $TOKENS).
local tokens = {}
for line in io.lines(os.getenv("TOKENS")) do tokens[#tokens + 1] = line end
local path = "/api/v1/users?limit=20&query=" .. os.getenv("QUERY")
local counter = 0
request = function()
  counter = counter + 1
  local token = tokens[(counter % #tokens) + 1]
  return wrk.format("GET", path, { ["Authorization"] = "Bearer " .. token })
end
