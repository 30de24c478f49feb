-- The requests of one workload, for wrk: `wrk -s bench/workload.lua URL -- MODE PATH IDS TOKEN TAG`.
-- MODE is get (GET PATH..id, rotating over the ids), list (GET PATH), post (POST PATH, a unique
-- email per request: TAG and a counter), put (PUT PATH..id with that customer's own email) or
-- patch (PATCH PATH..id, a merge patch of name and phone).
-- IDS is a file of "id email" lines ("-" as the file when none are needed).

local mode, path, tag, write_head, patch_head
local ids, emails, prebuilt = {}, {}, {}
local n = 0

function init(args)
  mode, path, tag = args[1], args[2], args[5]
  local read_headers = { ["Authorization"] = "Bearer " .. args[4] }
  -- Writes are concatenated by hand: wrk.format per request would make wrk the bottleneck.
  write_head = " HTTP/1.1\r\nHost: " .. wrk.host .. ":" .. wrk.port .. "\r\nAuthorization: Bearer " ..
    args[4] .. "\r\nContent-Type: application/json\r\nContent-Length: "
  patch_head = write_head:gsub("application/json", "application/merge-patch+json")
  if args[3] ~= "-" then
    for line in io.lines(args[3]) do
      local id, email = line:match("^(%S+) (%S+)$")
      ids[#ids + 1] = id
      emails[#emails + 1] = email
    end
  end
  -- Reads are formatted once: the generator's own cost stays small and equal for every target.
  if mode == "get" then
    for i, id in ipairs(ids) do prebuilt[i] = wrk.format("GET", path .. id, read_headers) end
  elseif mode == "list" then
    prebuilt[1] = wrk.format("GET", path, read_headers)
  end
end

local POST_BODY = '{"name":"Bench Customer %d","email":"bench.%s.%d@example.com",' ..
  '"phone":"+4930%07d","address":{"line1":"%d Bench Street","line2":null,"city":"Berlin",' ..
  '"region":"BE","postal_code":"10115","country":"DE"},"metadata":{"source":"bench"}}'
local PUT_BODY = '{"name":"Renamed Customer %d","email":"%s","phone":"+4930%07d",' ..
  '"address":null,"metadata":{"plan":"pro"}}'
local PATCH_BODY = '{"name":"Patched Customer %d","phone":"+4931%07d"}'

function request()
  n = n + 1
  if mode == "post" then
    local body = string.format(POST_BODY, n, tag, n, n % 10000000, n % 1000)
    return "POST " .. path .. write_head .. #body .. "\r\n\r\n" .. body
  elseif mode == "put" then
    local i = n % #ids + 1
    local body = string.format(PUT_BODY, n, emails[i], n % 10000000)
    return "PUT " .. path .. ids[i] .. write_head .. #body .. "\r\n\r\n" .. body
  elseif mode == "patch" then
    local i = n % #ids + 1
    local body = string.format(PATCH_BODY, n, n % 10000000)
    return "PATCH " .. path .. ids[i] .. patch_head .. #body .. "\r\n\r\n" .. body
  end
  return prebuilt[n % #prebuilt + 1]
end
