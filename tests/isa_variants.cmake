# The ISA-dependent tests once more per ISA level this build compiles
# (src/core/isa.h): each variant runs with MQ_ISA=<isa> and MQ_ISA_STRICT=1,
# through this same file in script mode (cmake -P), which fails the variant
# unless the binary passed AND the library reported running at that very
# level. On a CPU without the level the library aborts (MQ_ISA_STRICT), so a
# variant never passes, or skips, on another ISA than the one it names.
#
# Which tests: those whose answers go through the ISA switch (BVH ray
# kernels, scene ray walks) and that do not already loop over every level
# in-process (test_diff_bvh, test_diff_bvh_watertight, test_bvh, test_bvh_ties
# and test_bvh_packets call mq_isa_override themselves). Tests the switch does
# not reach (primitive rays, shape queries) would pass without running at the
# level: the check below fails them, so they are not listed. All at their
# normal size: about 45 s CPU per level in a Release build, a little over 2
# minutes for the three.
#
# A build with a single level (MQ_FORCE_SCALAR, or not x86-64) registers no
# variants: its plain tests already run at that level. AVX-512 is not
# registered: that level runs the AVX2 kernels until it has its own.

if(CMAKE_SCRIPT_MODE_FILE)
  # cmake -DMQ_ISA_RUN=<binary> [-DMQ_ISA_ARG=<argument>] -DMQ_ISA_WANT=<isa> -P isa_variants.cmake
  execute_process(COMMAND ${MQ_ISA_RUN} ${MQ_ISA_ARG} RESULT_VARIABLE rc OUTPUT_VARIABLE out ERROR_VARIABLE err)
  message("${out}${err}")
  if(NOT rc EQUAL 0)
    message(FATAL_ERROR "${MQ_ISA_RUN} failed (${rc}) with MQ_ISA=${MQ_ISA_WANT}")
  endif()
  if(NOT err MATCHES "meshquery: running at ISA ${MQ_ISA_WANT} ")
    message(FATAL_ERROR "${MQ_ISA_RUN} did not report running at ISA ${MQ_ISA_WANT}")
  endif()
  return()
endif()

if(CMAKE_SYSTEM_PROCESSOR MATCHES "x86_64|AMD64|amd64" AND NOT MQ_FORCE_SCALAR)
  set(MQ_ISA_LEVELS scalar sse2 avx2)
else()
  set(MQ_ISA_LEVELS)
endif()

# <layer>/<executable> (fuzz targets: <name>_replay <corpus>).
set(MQ_ISA_TESTS
  unit/test_isa
  diff/test_diff_scene_rays
  diff/test_diff_coordinates
  unit/test_scene
  unit/test_scene_bounds
  unit/test_bvh_outlier
  unit/test_concurrency
  fuzz/fuzz_scene_replay
  fuzz/fuzz_queries_replay)

# Sanitized builds (5-10x slower) leave out the costliest, whose oracle work
# rather than the switch dominates: the plain run there covers it at the
# CPU's level.
if(MQ_SANITIZE OR MQ_SANITIZE_THREAD)
  list(REMOVE_ITEM MQ_ISA_TESTS diff/test_diff_coordinates)
endif()

foreach(isa IN LISTS MQ_ISA_LEVELS)
  foreach(entry IN LISTS MQ_ISA_TESTS)
    string(REGEX REPLACE "/.*" "" layer ${entry})
    string(REGEX REPLACE ".*/" "" exe ${entry})
    if(NOT TARGET ${exe})
      continue()
    endif()
    set(arg "")
    if(layer STREQUAL "fuzz")
      string(REGEX REPLACE "^fuzz_(.*)_replay$" "\\1" short ${exe})
      set(arg ${CMAKE_CURRENT_SOURCE_DIR}/fuzz/corpus_${short})
    endif()
    set(name isa_${isa}/${layer}/${exe})
    add_test(NAME ${name} COMMAND ${CMAKE_COMMAND} -DMQ_ISA_RUN=$<TARGET_FILE:${exe}> "-DMQ_ISA_ARG=${arg}"
                                  -DMQ_ISA_WANT=${isa} -P ${CMAKE_CURRENT_LIST_FILE})
    set_tests_properties(${name} PROPERTIES LABELS "${layer};isa" TIMEOUT 600
                                            ENVIRONMENT "MQ_ISA=${isa};MQ_ISA_STRICT=1")
  endforeach()
endforeach()
