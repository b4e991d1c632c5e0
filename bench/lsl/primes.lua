-- Prime counting by trial division; the twin of primes.lsl.
local LIMIT = 1000000
local count = 0
for n = 2, LIMIT - 1 do
  local prime = true
  local d = 2
  while d * d <= n and prime do
    if n % d == 0 then prime = false end
    d = d + 1
  end
  if prime then count = count + 1 end
end
print("primes " .. count)
