# Copies the web controller's served files (index.html, login/, assets/) from SOURCE to
# DESTINATION, replacing what was there, and writes FILE.gz beside each text file over 1 KiB when
# GZIP names a gzip program (mixerd sends it to clients that accept gzip). Run by web/CMakeLists.txt.
file(REMOVE_RECURSE ${DESTINATION})
file(MAKE_DIRECTORY ${DESTINATION})
foreach(part index.html login assets)
  if(EXISTS ${SOURCE}/${part})
    file(COPY ${SOURCE}/${part} DESTINATION ${DESTINATION})
  endif()
endforeach()
if(NOT GZIP)
  return()
endif()
file(GLOB_RECURSE staged ${DESTINATION}/*.html ${DESTINATION}/*.css ${DESTINATION}/*.js
     ${DESTINATION}/*.svg ${DESTINATION}/*.json ${DESTINATION}/*.webmanifest)
foreach(file IN LISTS staged)
  file(SIZE ${file} size)
  if(size GREATER 1024)
    # -n: no name or time inside, so the same file always compresses to the same bytes.
    execute_process(COMMAND ${GZIP} -9 -n -c ${file} OUTPUT_FILE ${file}.gz RESULT_VARIABLE failed)
    if(failed)
      message(FATAL_ERROR "gzip failed on ${file}")
    endif()
  endif()
endforeach()
