-- Sieve of Eratosthenes below LIMIT over a bit set of 32-bit words (LSL has
-- no arrays: its twin keeps the words in a list), ROUNDS times; prints the
-- prime count and the sum of the primes of the last round.  The twin of
-- sieve.lsl.
local ROUNDS = 2000
local LIMIT = 2048
local WORDS = LIMIT // 32
local count, total = 0, 0
for r = 1, ROUNDS do
  local bits = {}
  for w = 1, WORDS do bits[w] = 0 end
  count, total = 0, 0
  for p = 2, LIMIT - 1 do
    local w = p // 32 + 1
    if bits[w] & (1 << (p % 32)) == 0 then
      count = count + 1
      total = total + p
      local m = p * p
      while m < LIMIT do
        local mw = m // 32 + 1
        bits[mw] = bits[mw] | (1 << (m % 32))
        m = m + p
      end
    end
  end
end
print("sieve " .. count .. " " .. total)
