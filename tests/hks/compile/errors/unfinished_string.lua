local s = "abc
print(s)
