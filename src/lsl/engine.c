/* Placeholder so the engine's object library is never empty; the engine's
 * real sources replace it. */
const char *gsvm_lsl_engine_name(void);
const char *gsvm_lsl_engine_name(void) { return "lsl"; }
