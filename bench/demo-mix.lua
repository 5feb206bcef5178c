-- A mix of the demo App's requests for wrk (bench/jit-churn.ts --wrk-script bench/demo-mix.lua
-- bench/servers/corral-demo.ts:/): a hello with an escaped name, a URL-encoded form, a multipart
-- upload of a 3,000-byte file, a hello with cookies and Accept-Encoding, and a 404, in turn.
local requests = {}
local turn = 0

init = function(args)
  requests[1] = wrk.format("GET", "/hello?name=w%C3%B6rld")
  requests[2] = wrk.format("POST", "/form",
    { ["Content-Type"] = "application/x-www-form-urlencoded" },
    "name=alice&age=30&tags=a&tags=b%20c")
  local body = "--XyZ\r\nContent-Disposition: form-data; name=\"note\"\r\n\r\nhello\r\n" ..
    "--XyZ\r\nContent-Disposition: form-data; name=\"file\"; filename=\"a.txt\"\r\n" ..
    "Content-Type: text/plain\r\n\r\n" .. string.rep("x", 3000) .. "\r\n--XyZ--\r\n"
  requests[3] = wrk.format("POST", "/upload",
    { ["Content-Type"] = "multipart/form-data; boundary=XyZ" }, body)
  requests[4] = wrk.format("GET", "/hello",
    { ["Cookie"] = "a=1; session=abcdef", ["Accept-Encoding"] = "gzip, br" })
  requests[5] = wrk.format("GET", "/missing")
end

request = function()
  turn = turn % #requests + 1
  return requests[turn]
end
