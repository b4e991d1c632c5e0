-- the meta slot holds an object, a table or a structure
hstructure P
  meta : number;
end
