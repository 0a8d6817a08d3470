-- Like and unlike random posts as the benchmark users: PUT then DELETE on the same post, alternately.
local tokens = {}
for line in io.lines(os.getenv("TOKENS")) do tokens[#tokens + 1] = line end
local posts = tonumber(os.getenv("POSTS") or "100000")
local counter = 0
local post, token = 1, tokens[1]
request = function()
  counter = counter + 1
  if counter % 2 == 1 then
    post = math.random(1, posts)
    token = tokens[math.random(1, #tokens)]
    return wrk.format("PUT", "/api/v1/posts/" .. post .. "/like", { ["Authorization"] = "Bearer " .. token })
  end
  return wrk.format("DELETE", "/api/v1/posts/" .. post .. "/like", { ["Authorization"] = "Bearer " .. token })
end
