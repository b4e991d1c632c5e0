/* Internal to the native LSL library (src/lsl/lib_*.c): the list of natively
 * implemented functions and the helpers they share.  Users go through
 * builtins.h (lsl_builtin_native / lsl_builtin_call). */
#ifndef GSVM_LSL_LIB_H
#define GSVM_LSL_LIB_H

#include "lsl/builtins.h"

/* Every native function, by file.  builtins.c maps func-ids to these; a test
 * checks this list equals the LSL_FN_WORLDLESS rows of builtins.def. */
#define LSL_NATIVES_MATH(X)                                                                   \
    X(llAbs) X(llFabs) X(llSqrt) X(llPow) X(llSin) X(llCos) X(llTan) X(llAtan2) X(llAcos)     \
    X(llAsin) X(llLog) X(llLog10) X(llFloor) X(llCeil) X(llRound) X(llFrand) X(llModPow)      \
    X(llVecMag) X(llVecNorm) X(llVecDist) X(llRot2Euler) X(llEuler2Rot) X(llAxes2Rot)         \
    X(llRot2Fwd) X(llRot2Left) X(llRot2Up) X(llRotBetween) X(llAxisAngle2Rot) X(llRot2Axis)   \
    X(llRot2Angle) X(llAngleBetween) X(llLinear2sRGB) X(llsRGB2Linear)
#define LSL_NATIVES_STRING(X)                                                                 \
    X(llStringLength) X(llGetSubString) X(llDeleteSubString) X(llInsertString)                \
    X(llSubStringIndex) X(llToUpper) X(llToLower) X(llStringTrim) X(llEscapeURL)              \
    X(llUnescapeURL) X(llChar) X(llOrd) X(llReplaceSubString) X(llHash)
#define LSL_NATIVES_LIST(X)                                                                   \
    X(llGetListLength) X(llList2Integer) X(llList2Float) X(llList2String) X(llList2Key)       \
    X(llList2Vector) X(llList2Rot) X(llList2List) X(llDeleteSubList) X(llGetListEntryType)    \
    X(llList2CSV) X(llCSV2List) X(llListRandomize) X(llList2ListStrided) X(llList2ListSlice) X(llListInsertList)  \
    X(llListFindList) X(llParseString2List) X(llParseStringKeepNulls) X(llDumpList2String)   \
    X(llListReplaceList) X(llListStatistics) X(llListSort) X(llListSortStrided) X(llListFindListNext)

#define LSL_NATIVES_CODEC(X)                                                                  \
    X(llStringToBase64) X(llBase64ToString) X(llIntegerToBase64) X(llBase64ToInteger)        \
    X(llXorBase64) X(llXorBase64Strings) X(llXorBase64StringsCorrect) X(llMD5String)         \
    X(llSHA1String) X(llSHA256String) X(llHMAC) X(llGenerateKey) X(llComputeHash)
#define LSL_NATIVES_JSON(X)                                                                   \
    X(llJsonGetValue) X(llJsonSetValue) X(llJsonValueType) X(llJson2List) X(llList2Json)

#define LSL_NATIVES(X)                                                                        \
    LSL_NATIVES_MATH(X) LSL_NATIVES_STRING(X) LSL_NATIVES_LIST(X) LSL_NATIVES_CODEC(X)        \
    LSL_NATIVES_JSON(X)

#define LSL_DECLARE_NATIVE(name) \
    gsvm_status lsl_lib_##name(lsl_call_ctx *ctx, const lsl_value *args, lsl_value *ret);
LSL_NATIVES(LSL_DECLARE_NATIVE)
#undef LSL_DECLARE_NATIVE

/* ---- shared helpers ------------------------------------------------------ */

/* Raises a Second Life runtime error ("Math Error", ...). */
gsvm_status lsl_lib_raise(lsl_call_ctx *ctx, const char *message);

/* The most bytes of text a function may still build: a string of n bytes
 * is charged at least 16 + n/2 (4 bytes per UTF-16 pair at most), so
 * anything longer than this cannot fit the heap (or exceeds the absolute
 * string bound).  Functions whose output can outgrow their input (joins,
 * replacements) check it while building, so a script cannot make the host
 * allocate far beyond its own limit. */
size_t lsl_lib_text_budget(const lsl_call_ctx *ctx);
gsvm_status lsl_lib_too_long(lsl_call_ctx *ctx);

/* Results. */
static inline gsvm_status lsl_ret_int(lsl_value *ret, int32_t i) { *ret = lsl_int(i); return GSVM_OK; }
static inline gsvm_status lsl_ret_float(lsl_value *ret, float f) { *ret = lsl_float(f); return GSVM_OK; }
gsvm_status lsl_ret_str(lsl_call_ctx *ctx, lsl_type type, const char *s, size_t len, lsl_value *ret);
/* Takes the buffer's bytes (and frees it). */
gsvm_status lsl_ret_buf(lsl_call_ctx *ctx, lsl_type type, gsvm_buf *b, lsl_value *ret);

/* Characters.  LSL indexes strings by character (Unicode code point) not
 * byte; these walk UTF-8 (a byte that is not part of a well-formed sequence
 * counts as one character). */
size_t lsl_utf8_next(const char *s, size_t len, size_t i); /* offset of the next char */
size_t lsl_utf8_count(const char *s, size_t len);
/* Byte offset of character `n` (len when n is past the end). */
size_t lsl_utf8_offset(const char *s, size_t len, size_t n);
/* Decodes the character at byte i (U+FFFD for a malformed byte). */
uint32_t lsl_utf8_decode(const char *s, size_t len, size_t i);
void lsl_utf8_put(gsvm_buf *b, uint32_t cp);
/* Appends bytes as Mono turns them into a string: well-formed UTF-8 kept,
 * each byte of a malformed sequence replaced by '?', cut at the first NUL. */
void lsl_utf8_sanitize(gsvm_buf *out, const uint8_t *s, size_t n);

/* Second Life's index ranges (llGetSubString, llList2List, ...): negative
 * indexes count from the end; start <= end selects [start, end] clipped to
 * the sequence; start > end selects the two outer pieces [0, end] and
 * [start, len-1] (wraparound).  Fills up to two half-open intervals of
 * selected positions and returns how many. */
int lsl_range_select(int64_t len, int32_t start, int32_t end, int64_t iv[2][2]);
/* A single index: negative counts from the end; -1 if out of range. */
int64_t lsl_index(int64_t len, int32_t index);

/* Base64 (standard alphabet, '=' padding) used by several functions. */
void lsl_base64_encode(gsvm_buf *b, const uint8_t *data, size_t len);
/* Decodes as Second Life does: stops at the first character outside the
 * alphabet ('=' included); trailing partial bits are dropped. */
void lsl_base64_decode(gsvm_buf *b, const char *s, size_t len);

#endif
