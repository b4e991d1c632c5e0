local a = 0x123456789hi
