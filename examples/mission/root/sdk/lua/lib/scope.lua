-- A tiny SDK module: prefixes variable names with a tag.
local scope = {}
function scope.name(tag, name) return tag .. "." .. name end
return scope
