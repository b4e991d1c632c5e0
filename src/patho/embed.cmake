# Writes the bytes of IN as a C array NAME (and NAME_len) into OUT, so data
# files the library ships (the native declarations) are compiled in.
file(READ ${IN} hex HEX)
string(REGEX REPLACE "([0-9a-f][0-9a-f])" "0x\\1," bytes "${hex}")
file(WRITE ${OUT} "/* Generated from ${IN} by embed.cmake; do not edit. */\n#include <stddef.h>\nconst char ${NAME}[] = {${bytes}0};\nconst size_t ${NAME}_len = sizeof ${NAME} - 1;\n")
