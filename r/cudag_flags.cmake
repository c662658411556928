# SPDX-License-Identifier: Apache-2.0
# Included by the top-level CMakeLists.txt with -DCUDAG_BUILD_R=ON: writes <build>/r/cudag.mk,
# the flags the R package's configure script (r/configure) puts in src/Makevars, so that
# its shared object links the build's static libraries (cudag_run, cudag_core, cudag_mpi,
# [cudag_cuda]) and what they need (HDF5, [MPI], [CUDA runtime, NCCL]) as the Python module
# does. `ninja cudag_r_libs` builds the libraries the package links.
set(_r_includes ${PROJECT_SOURCE_DIR}/src ${PROJECT_SOURCE_DIR} ${PROJECT_BINARY_DIR}/generated ${HDF5_C_INCLUDE_DIRS})
if(HDF5_IS_PARALLEL)
    list(APPEND _r_includes ${MPI_CXX_INCLUDE_DIRS})
endif()
set(_r_cppflags "")
foreach(_d IN LISTS _r_includes)
    string(APPEND _r_cppflags " -I${_d}")
endforeach()
foreach(_d IN LISTS HDF5_C_DEFINITIONS)
    string(APPEND _r_cppflags " ${_d}")
endforeach()

set(_r_archives "$<TARGET_FILE:cudag_run> $<TARGET_FILE:cudag_core> $<TARGET_FILE:cudag_mpi>")
set(_r_deps cudag_run cudag_core cudag_mpi)
if(CUDAG_ENABLE_CUDA)
    string(APPEND _r_archives " $<TARGET_FILE:cudag_cuda>")
    list(APPEND _r_deps cudag_cuda)
endif()
set(_r_libs "-Wl,--start-group ${_r_archives} -Wl,--end-group")
foreach(_l IN LISTS HDF5_C_LIBRARIES)
    string(APPEND _r_libs " ${_l}")
endforeach()
if(CUDAG_ENABLE_MPI OR HDF5_IS_PARALLEL)
    foreach(_l IN LISTS MPI_CXX_LIBRARIES)
        string(APPEND _r_libs " ${_l}")
    endforeach()
endif()
# The CUDA runtime and NCCL by path, found again at load time through an rpath (they are
# seldom in the loader's default folders).
if(CUDAG_ENABLE_CUDA)
    string(APPEND _r_libs " $<TARGET_FILE:CUDA::cudart> -Wl,-rpath,$<TARGET_FILE_DIR:CUDA::cudart>")
endif()
if(CUDAG_ENABLE_NCCL)
    get_filename_component(_r_nccl_dir "${NCCL_LIBRARY}" DIRECTORY)
    string(APPEND _r_libs " ${NCCL_LIBRARY} -Wl,-rpath,${_r_nccl_dir}")
endif()
string(APPEND _r_libs " -pthread")

file(GENERATE OUTPUT ${PROJECT_BINARY_DIR}/r/cudag.mk CONTENT
"# Written by CMake (r/cudag_flags.cmake) for the R package's configure script.
CUDAG_CPPFLAGS =${_r_cppflags}
CUDAG_LIBS = ${_r_libs}
CUDAG_CUDA = $<IF:$<BOOL:${CUDAG_ENABLE_CUDA}>,yes,no>
")
add_custom_target(cudag_r_libs DEPENDS ${_r_deps})
