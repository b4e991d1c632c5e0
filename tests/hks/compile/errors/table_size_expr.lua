local t = {}:1, y
