# SPDX-License-Identifier: Apache-2.0
# The wheel carries the shared libraries it needs beyond a Linux system's base (what
# auditwheel's "repair" does, without auditwheel, patchelf or docker): at install time the
# module's and the executable's dependencies are resolved (file(GET_RUNTIME_DEPENDENCIES))
# and every one outside the manylinux allow-list (glibc's libraries, libstdc++, libgcc_s,
# the dynamic loader, ...) is copied under its soname into <platlib>/cudag_learn.libs/.
# HDF5 comes with what it links (libsz, libaec, libz, libcurl and its TLS and Kerberos
# libraries; with the openmpi flavour of HDF5 also Open MPI's libraries, loaded but never
# initialised: the wheel is built with CUDAG_ENABLE_MPI=OFF, pyproject.toml).
#
# How the copies are found, with no library renamed or re-linked:
#  * the module (<platlib>/cudag/) and the executable (<prefix>/bin/) carry a DT_RPATH
#    (--disable-new-dtags), not a DT_RUNPATH: glibc searches a DT_RPATH for the whole
#    chain of libraries loaded below the object, where a DT_RUNPATH serves only the
#    object's own direct dependencies;
#  * a copied library with its own RPATH or RUNPATH (Open MPI's point to its install
#    folder, which would end that inheritance) gets "$ORIGIN" in its place (file(RPATH_SET)
#    rewrites the string in place, so it only shortens);
#  * the executable lies in the environment's bin/ and the libraries in its platlib: its
#    RPATH names <bin>/../lib/pythonX.Y/{site,dist}-packages/cudag_learn.libs (venv, --user,
#    /usr/local on Debian), X.Y the Python the wheel is built for.
# -Ccmake.define.CUDAG_WHEEL_BUNDLE=OFF builds a wheel that links the system's libraries
# (for a distribution's own package or a conda build).
option(CUDAG_WHEEL_BUNDLE "Copy the shared libraries outside the manylinux allow-list into the wheel" ON)
if(NOT CUDAG_WHEEL_BUNDLE)
    return()
endif()

# The CUDA runtime: "bundle" (the default) copies the toolkit's libcudart into the wheel like
# any other library; "cu13" (the cudag-learn-cu13 wheel, -Ccudag.variant=cu13:
# python/pep517/cudag_build.py) leaves it out and finds the libcudart.so.13 of NVIDIA's
# nvidia-cuda-runtime wheel, a dependency, in <platlib>/nvidia/cu13/lib (searched after
# cudag_learn.libs; where that wheel is absent, the system's libcudart.so.13 serves).
set(CUDAG_WHEEL_CUDA_RUNTIME "bundle" CACHE STRING "The wheel's CUDA runtime: bundle, or cu<major> (NVIDIA's nvidia-cuda-runtime wheel)")
set(_cudag_libs_dir cudag_learn.libs)
set(_cudag_py python${Python_VERSION_MAJOR}.${Python_VERSION_MINOR})
set(_cudag_module_dirs "${_cudag_libs_dir}")
set(_cudag_exclude_libs)
if(NOT CUDAG_WHEEL_CUDA_RUNTIME STREQUAL "bundle")
    if(NOT CUDAG_ENABLE_CUDA)
        message(FATAL_ERROR "CUDAG_WHEEL_CUDA_RUNTIME=${CUDAG_WHEEL_CUDA_RUNTIME} needs CUDAG_ENABLE_CUDA=ON (nvcc)")
    endif()
    if(NOT CUDAG_WHEEL_CUDA_RUNTIME STREQUAL "cu${CUDAToolkit_VERSION_MAJOR}")
        message(FATAL_ERROR "CUDAG_WHEEL_CUDA_RUNTIME=${CUDAG_WHEEL_CUDA_RUNTIME}, but the CUDA toolkit is "
                            "${CUDAToolkit_VERSION} (cu${CUDAToolkit_VERSION_MAJOR})")
    endif()
    list(APPEND _cudag_module_dirs "nvidia/${CUDAG_WHEEL_CUDA_RUNTIME}/lib")
    list(APPEND _cudag_exclude_libs "^libcudart\\\\.so")
endif()
set(_cudag_module_rpath)
set(_cudag_exe_rpath)
foreach(_dir IN LISTS _cudag_module_dirs)
    list(APPEND _cudag_module_rpath "$ORIGIN/../${_dir}")
    list(APPEND _cudag_exe_rpath "$ORIGIN/../lib/${_cudag_py}/site-packages/${_dir}"
                                 "$ORIGIN/../lib/${_cudag_py}/dist-packages/${_dir}")
endforeach()
list(JOIN _cudag_module_rpath ":" _cudag_module_rpath)
list(JOIN _cudag_exe_rpath ":" _cudag_exe_rpath)
set_target_properties(_cudag PROPERTIES INSTALL_RPATH "${_cudag_module_rpath}" BUILD_WITH_INSTALL_RPATH ON)
set_target_properties(cudag PROPERTIES INSTALL_RPATH "${_cudag_exe_rpath}" BUILD_WITH_INSTALL_RPATH ON)
target_link_options(_cudag PRIVATE "LINKER:--disable-new-dtags")
target_link_options(cudag PRIVATE "LINKER:--disable-new-dtags")
# libstdc++ and libgcc linked in (the module keeps them to itself: --exclude-libs,ALL), so
# that what the wheel needs of the system is glibc alone and its manylinux tag follows from
# the newest glibc symbol version it uses (scripts/wheel_tag.py).
target_link_options(_cudag PRIVATE -static-libstdc++ -static-libgcc)
target_link_options(cudag PRIVATE -static-libstdc++ -static-libgcc)

# The static GCC runtime, built against the build machine's glibc, calls arc4random (2.36) and
# _dl_find_object (2.35): defined here from older functions (python/src/glibc_compat.cpp), so
# that they do not raise the wheel's glibc floor above what cudag and its libraries need.
if(CMAKE_SYSTEM_NAME STREQUAL "Linux")
    target_sources(_cudag PRIVATE ${PROJECT_SOURCE_DIR}/python/src/glibc_compat.cpp)
    target_sources(cudag PRIVATE ${PROJECT_SOURCE_DIR}/python/src/glibc_compat.cpp)
endif()

# The manylinux allow-list (PEP 599/600; auditwheel's policy): what every Linux has.
set(_cudag_system_libs
    "^linux-vdso\\\\.so" "^ld-linux" "^lib(c|m|dl|rt|pthread|util|nsl|resolv|gcc_s|stdc\\\\+\\\\+)\\\\.so"
    "^lib(X11|Xext|Xrender|ICE|SM|GL|gobject-2\\\\.0|gthread-2\\\\.0|glib-2\\\\.0)\\\\.so"
    ${_cudag_exclude_libs})
install(CODE "
set(_system \"${_cudag_system_libs}\")
set(_dest \"\$ENV{DESTDIR}\${CMAKE_INSTALL_PREFIX}/${_cudag_libs_dir}\")
file(GET_RUNTIME_DEPENDENCIES
    EXECUTABLES \"$<TARGET_FILE:cudag>\"
    MODULES \"$<TARGET_FILE:_cudag>\"
    RESOLVED_DEPENDENCIES_VAR _found
    UNRESOLVED_DEPENDENCIES_VAR _missing
    CONFLICTING_DEPENDENCIES_PREFIX _conflict
    PRE_EXCLUDE_REGEXES \${_system})
if(_missing)
    message(FATAL_ERROR \"cudag wheel: unresolved shared libraries: \${_missing}\")
endif()
# The same file reached through two paths (/lib is /usr/lib on a merged-/usr system) is
# one library; two different files of one name are an error.
foreach(_name IN LISTS _conflict_FILENAMES)
    set(_reals)
    foreach(_path IN LISTS _conflict_\${_name})
        file(REAL_PATH \"\${_path}\" _real)
        list(APPEND _reals \"\${_real}\")
    endforeach()
    list(REMOVE_DUPLICATES _reals)
    list(LENGTH _reals _n)
    if(NOT _n EQUAL 1)
        message(FATAL_ERROR \"cudag wheel: two different libraries named \${_name}: \${_reals}\")
    endif()
    list(GET _conflict_\${_name} 0 _first)
    list(APPEND _found \"\${_first}\")
endforeach()
file(MAKE_DIRECTORY \"\${_dest}\")
foreach(_lib IN LISTS _found)
    get_filename_component(_name \"\${_lib}\" NAME)
    file(REAL_PATH \"\${_lib}\" _real)
    file(COPY_FILE \"\${_real}\" \"\${_dest}/\${_name}\")
    unset(_rpath)  # READ_ELF leaves a variable as it was where the entry is absent
    unset(_runpath)
    file(READ_ELF \"\${_dest}/\${_name}\" RPATH _rpath RUNPATH _runpath)
    if(_rpath OR _runpath)
        file(RPATH_SET FILE \"\${_dest}/\${_name}\" NEW_RPATH \"\\$ORIGIN\")
    endif()
    message(STATUS \"cudag wheel: bundled \${_name} (from \${_real})\")
endforeach()
")
