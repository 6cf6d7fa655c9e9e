# The Debian package (tools/package.sh runs `cpack` in the release build folder): everything
# `cmake --install` puts under /usr, plus what only a system install needs: the systemd user
# unit, the udev rule, the man page, the copyright file and example settings. No maintainer
# script: installing, upgrading and removing never touch a user's data folder.

# The unit's ExecStart names the installed binary: conf/mixerd.service (for hand installs) says
# /usr/local/bin/mixerd; the installed copy says <install prefix>/bin/mixerd, /usr/bin/mixerd in
# the package. Written at install time, when the prefix is known.
set(MIXERD_UNIT ${CMAKE_BINARY_DIR}/packaging/mixerd.service)
install(CODE "
  file(READ \"${CMAKE_SOURCE_DIR}/conf/mixerd.service\" unit)
  string(REPLACE \"ExecStart=/usr/local/bin/mixerd\" \"ExecStart=\${CMAKE_INSTALL_PREFIX}/bin/mixerd\"
         unit \"\${unit}\")
  file(WRITE \"${MIXERD_UNIT}\" \"\${unit}\")
")
# systemd looks for user units in /usr/lib/systemd/user (debhelper puts them there too).
install(FILES ${MIXERD_UNIT} DESTINATION lib/systemd/user)
# udev on Debian 12 reads packaged rules from /lib/udev/rules.d (lintian's Udev check looks
# there; /etc/udev/rules.d is the administrator's).
set(MIXERD_UDEV_RULES_DIR /lib/udev/rules.d CACHE PATH "Where the udev rule is installed")
install(FILES ${CMAKE_SOURCE_DIR}/conf/99-mixerd.rules DESTINATION ${MIXERD_UDEV_RULES_DIR})
install(FILES ${CMAKE_SOURCE_DIR}/conf/settings.example.json
        DESTINATION share/doc/mixerd/examples)
install(FILES ${CMAKE_SOURCE_DIR}/conf/debian/copyright DESTINATION share/doc/mixerd)
# Names the mixer's USB id for software centres (and for lintian, since the udev rule grants it).
install(FILES ${CMAKE_SOURCE_DIR}/conf/debian/io.github.mixerd.metainfo.xml DESTINATION share/metainfo)

# Man pages and the changelog are installed gzipped (-9n: the same bytes on every build, as
# Debian policy asks), like the web controller's files in cmake/stage_web.cmake.
find_program(MIXERD_GZIP gzip REQUIRED)
file(MAKE_DIRECTORY ${CMAKE_BINARY_DIR}/packaging)
set(package_docs)
# A version without a Debian revision makes a native package: its changelog is changelog.gz.
foreach(doc docs/mixerd.1 docs/mixer-sim.1 conf/debian/changelog)
  get_filename_component(name ${doc} NAME)
  set(gzipped ${CMAKE_BINARY_DIR}/packaging/${name}.gz)
  add_custom_command(
    OUTPUT ${gzipped}
    COMMAND ${MIXERD_GZIP} -9 -n -c ${CMAKE_SOURCE_DIR}/${doc} > ${gzipped}
    DEPENDS ${CMAKE_SOURCE_DIR}/${doc}
    COMMENT "Compressing ${doc}")
  list(APPEND package_docs ${gzipped})
endforeach()
add_custom_target(mixerd_package_docs ALL DEPENDS ${package_docs})
install(FILES ${CMAKE_BINARY_DIR}/packaging/mixerd.1.gz ${CMAKE_BINARY_DIR}/packaging/mixer-sim.1.gz
        DESTINATION share/man/man1)
install(FILES ${CMAKE_BINARY_DIR}/packaging/changelog.gz DESTINATION share/doc/mixerd)

# cpack (and `make install`) would first build everything, unit tests and benchmarks included:
# hours on a Pi. tools/package.sh builds what the package holds before it runs cpack.
set(CMAKE_SKIP_INSTALL_ALL_DEPENDENCY ON)
set(CPACK_GENERATOR DEB)
set(CPACK_PACKAGING_INSTALL_PREFIX /usr)
set(CPACK_PACKAGE_NAME mixerd)
set(CPACK_PACKAGE_VERSION ${PROJECT_VERSION})
set(CPACK_PACKAGE_CONTACT "mixerd maintainers <maintainers@users.noreply.a-seed-83884b66.example>")
set(CPACK_PACKAGE_DESCRIPTION_SUMMARY "control daemon for a USB hardware audio mixer")
# The synopsis is the summary above; CPack indents these lines and writes an empty one as " .".
set(CPACK_DEBIAN_PACKAGE_DESCRIPTION
    "mixerd talks to a slider-and-button mixer over USB serial and sets the
volumes of PulseAudio or PipeWire applications from it. It serves a web
controller, a REST and Socket.IO API, a plant store and an HTTP
notification API (port 8889 by default) that shows toasts on the mixer's
display, and runs macros and Python plugins.

The package holds the daemon, the mixer simulator, the plugin SDK, the web
controller, a systemd user unit and a udev rule for the device.")
# mixerd is MIT-licensed (LICENSE). A .deb has no license control field: its license is the
# DEP-5 file conf/debian/copyright, installed above as /usr/share/doc/mixerd/copyright.
set(CPACK_RESOURCE_FILE_LICENSE ${CMAKE_SOURCE_DIR}/LICENSE)
set(CPACK_DEBIAN_PACKAGE_SECTION sound)
set(CPACK_DEBIAN_PACKAGE_PRIORITY optional)
# Left empty, CPack asks `dpkg --print-architecture`: amd64 here, arm64 or armhf on a Pi.
set(CPACK_DEBIAN_FILE_NAME DEB-DEFAULT)
# Depends on the shared libraries the binaries link, from dpkg-shlibdeps; the plugin SDK and
# the plugin runner are Python.
set(CPACK_DEBIAN_PACKAGE_SHLIBDEPS ON)
set(CPACK_DEBIAN_PACKAGE_DEPENDS "python3")
set(CPACK_DEBIAN_PACKAGE_RECOMMENDS "pipewire-pulse | pulseaudio, avahi-daemon")
# Directories owned by the package get 0755 whatever the build machine's umask.
set(CPACK_INSTALL_DEFAULT_DIRECTORY_PERMISSIONS OWNER_READ OWNER_WRITE OWNER_EXECUTE GROUP_READ
                                                GROUP_EXECUTE WORLD_READ WORLD_EXECUTE)
set(CPACK_STRIP_FILES ON)
set(CPACK_PACKAGE_DIRECTORY ${CMAKE_BINARY_DIR}/package)
include(CPack)
