-- Like and unlike random posts as the benchmark users: each like (PUT) is undone (DELETE) about a thousand requests
-- later, likes and unlikes alternating once under way. A toggle is undone long after its batch has committed, as a
-- person's would be: a like and its unlike sent back to back could share one batch on PostgreSQL, which writes nothing
-- for the pair.
local tokens = {}
for line in io.lines(os.getenv("TOKENS")) do tokens[#tokens + 1] = line end
local posts = tonumber(os.getenv("POSTS") or "100000")
local lag = 512
local counter = 0
local pending, first, last = {}, 1, 0
request = function()
  counter = counter + 1
  if counter % 2 == 0 and last - first + 1 >= lag then
    local like = pending[first]
    pending[first] = nil
    first = first + 1
    return wrk.format("DELETE", "/api/v1/posts/" .. like.post .. "/like", { ["Authorization"] = "Bearer " .. like.token })
  end
  local like = { post = math.random(1, posts), token = tokens[math.random(1, #tokens)] }
  last = last + 1
  pending[last] = like
  return wrk.format("PUT", "/api/v1/posts/" .. like.post .. "/like", { ["Authorization"] = "Bearer " .. like.token })
end
