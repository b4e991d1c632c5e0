# Replay tests: each fuzz target linked with replay_main.c instead of libFuzzer,
# run over its seeds plus a fixed number of deterministic mutations of them,
# so that every `make test` exercises the loaders with bad input under ASan/UBSan.
file(GLOB FUZZ_SOURCES CONFIGURE_DEPENDS ${CMAKE_SOURCE_DIR}/tests/fuzz/fuzz_*.c)
foreach(src IN LISTS FUZZ_SOURCES)
  get_filename_component(name ${src} NAME_WE)
  string(REGEX REPLACE "^fuzz_([a-z]+)_.*" "\\1" engine ${name})
  if(engine STREQUAL "base" OR engine IN_LIST GSVM_ENGINES)
    add_executable(replay_${name} ${src} ${CMAKE_SOURCE_DIR}/tests/fuzz/replay_main.c)
    target_link_libraries(replay_${name} PRIVATE gsvm)
    add_test(NAME replay_${name}
             COMMAND replay_${name} ${CMAKE_SOURCE_DIR}/tests/fuzz/${name}.seeds)
    set_tests_properties(replay_${name} PROPERTIES ENVIRONMENT "${GSVM_TEST_ENV}"
                         WORKING_DIRECTORY ${CMAKE_SOURCE_DIR} TIMEOUT 900)
  endif()
endforeach()

# The README's table of what each target feeds: one row per target, in words.
add_test(NAME fuzz_readme_table COMMAND sh ${CMAKE_SOURCE_DIR}/tests/fuzz/readme_table_test.sh
         WORKING_DIRECTORY ${CMAKE_SOURCE_DIR})
set_tests_properties(fuzz_readme_table PROPERTIES TIMEOUT 60)
