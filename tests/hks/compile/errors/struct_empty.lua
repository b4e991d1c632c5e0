-- an hstructure with nothing in it
hstructure E
end
