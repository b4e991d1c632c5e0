-- a structure named like a built-in type
hstructure table
  x : number;
end
