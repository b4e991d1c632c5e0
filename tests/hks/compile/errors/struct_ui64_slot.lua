-- structures cannot hold ui64 values
hstructure P
  big : ui64;
end
