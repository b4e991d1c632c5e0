#include "harness.h"
int main(void) { TEST_MAIN_END(); }
