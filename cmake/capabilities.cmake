# One CMake target per capability (docs/architecture.md, "Adding a capability"). A capability's
# folder holds a CMakeLists.txt that calls
#
#   mixerd_capability(<name> [OPTIONAL] [LIBRARIES <targets...>] [PACKAGES <pkg-config names...>])
#
# which builds every source of the folder into the target mixerd_cap_<name> on the support
# library. OPTIONAL gives it the switch MIXERD_WITH_<NAME> (default ON): off, the capability is
# not built, its outside libraries are not looked for, and its row leaves the capability table
# (the compile definition MIXERD_WITH_<NAME>=0). PACKAGES are looked up with pkg-config (only
# when it is built) and linked, as LIBRARIES are.
#
# The enabled capabilities are listed in the global property MIXERD_CAPABILITIES; their switches
# in MIXERD_CAPABILITY_DEFINITIONS (for the composition root and the tests).
function(mixerd_capability name)
  cmake_parse_arguments(C "OPTIONAL" "" "LIBRARIES;PACKAGES" ${ARGN})
  string(TOUPPER "${name}" upper)
  if(C_OPTIONAL)
    option(MIXERD_WITH_${upper} "Build the ${name} capability" ON)
    if(MIXERD_MINIMAL)
      set(MIXERD_WITH_${upper} OFF CACHE BOOL "Build the ${name} capability" FORCE)
    endif()
    if(MIXERD_WITH_${upper})
      set_property(GLOBAL APPEND PROPERTY MIXERD_CAPABILITY_DEFINITIONS MIXERD_WITH_${upper}=1)
    else()
      set_property(GLOBAL APPEND PROPERTY MIXERD_CAPABILITY_DEFINITIONS MIXERD_WITH_${upper}=0)
      message(STATUS "mixerd: without the ${name} capability")
      return()
    endif()
  endif()
  file(GLOB sources CONFIGURE_DEPENDS ${CMAKE_CURRENT_SOURCE_DIR}/*.cpp)
  add_library(mixerd_cap_${name} STATIC ${sources})
  target_link_libraries(mixerd_cap_${name} PUBLIC mixerd_support ${C_LIBRARIES})
  foreach(package ${C_PACKAGES})
    string(MAKE_C_IDENTIFIER "${package}" id)
    pkg_check_modules(${id} REQUIRED IMPORTED_TARGET GLOBAL ${package})
    target_link_libraries(mixerd_cap_${name} PUBLIC PkgConfig::${id})
  endforeach()
  set_property(GLOBAL APPEND PROPERTY MIXERD_CAPABILITIES mixerd_cap_${name})
endfunction()

# The targets of every enabled capability and their switches, once every folder was added.
function(mixerd_enabled_capabilities targets_var definitions_var)
  get_property(targets GLOBAL PROPERTY MIXERD_CAPABILITIES)
  get_property(definitions GLOBAL PROPERTY MIXERD_CAPABILITY_DEFINITIONS)
  set(${targets_var} ${targets} PARENT_SCOPE)
  set(${definitions_var} ${definitions} PARENT_SCOPE)
endfunction()
