x = function(a, 1) end
