local s = "\999"
