hstructure P
  x : number;
  x : string;
end
