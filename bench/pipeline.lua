-- Pipelined requests for wrk: every write carries `depth` requests (default 16).
-- Usage: wrk -s bench/pipeline.lua http://127.0.0.1:PORT/ -- 16
init = function(args)
  local depth = tonumber(args[1]) or 16
  local requests = {}
  for i = 1, depth do
    requests[i] = wrk.format()
  end
  req = table.concat(requests)
end

request = function()
  return req
end
