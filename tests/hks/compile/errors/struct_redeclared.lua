hstructure P
  x : number;
end
hstructure P
  y : number;
end
