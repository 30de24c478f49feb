-- GETs of the request paths in a file, one after the other, for wrk:
-- `wrk -s bench/support/paths.lua URL -- PATHS TOKEN`. Each connection starts at its own place.
local prebuilt = {}
local n = 0

function init(args)
  local headers = { ["Authorization"] = "Bearer " .. args[2] }
  for line in io.lines(args[1]) do prebuilt[#prebuilt + 1] = wrk.format("GET", line, headers) end
  n = math.random(#prebuilt)
end

function request()
  n = n % #prebuilt + 1
  return prebuilt[n]
end
