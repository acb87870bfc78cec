# The OpenAPI description as the agent serves it (GET /openapi.json). It stands alone: each schema agent/openapi.json
# refers to in ../schemas/ (the run request, the results) is bundled in under components.schemas, its own
# references re-rooted there and its $id dropped (a base URI of its own would send them elsewhere), so that a
# client reading it needs no other file.
#   include(openapi_bundle.cmake)                      agent/CMakeLists.txt: sets LAYOUTSCOPE_OPENAPI_JSON
#   cmake -DOUT=FILE -P agent/openapi_bundle.cmake     writes the same text to FILE (the page's build makes its
#                                                      types of the agent's answers from it)
get_filename_component(_ls_agent_dir "${CMAKE_CURRENT_LIST_DIR}" ABSOLUTE)
get_filename_component(_ls_root "${_ls_agent_dir}" DIRECTORY)
file(READ ${_ls_agent_dir}/openapi.json LAYOUTSCOPE_OPENAPI_JSON)
function(layoutscope_bundle_schema file component)
  file(READ ${_ls_root}/schemas/${file} _schema)
  string(JSON _schema REMOVE "${_schema}" "$id")
  string(JSON _schema REMOVE "${_schema}" "$schema")
  string(REPLACE "\"#/$defs/" "\"#/components/schemas/${component}/$defs/" _schema "${_schema}")
  set(_doc "${LAYOUTSCOPE_OPENAPI_JSON}")
  string(REPLACE "\"../schemas/${file}#/$defs/" "\"#/components/schemas/${component}/$defs/" _doc "${_doc}")
  string(REPLACE "\"../schemas/${file}\"" "\"#/components/schemas/${component}\"" _doc "${_doc}")
  string(JSON _doc SET "${_doc}" components schemas ${component} "${_schema}")
  set(LAYOUTSCOPE_OPENAPI_JSON "${_doc}" PARENT_SCOPE)
endfunction()
layoutscope_bundle_schema(run-request.schema.json RunRequest)
layoutscope_bundle_schema(results.schema.json Results)
if(LAYOUTSCOPE_OPENAPI_JSON MATCHES "\"\\.\\./schemas/")
  message(FATAL_ERROR "agent/openapi.json: a reference to a schema in ../schemas/ that the bundling does not know")
endif()
if(CMAKE_SCRIPT_MODE_FILE)
  if(NOT OUT)
    message(FATAL_ERROR "openapi_bundle.cmake: give the output file: cmake -DOUT=FILE -P agent/openapi_bundle.cmake")
  endif()
  file(WRITE "${OUT}" "${LAYOUTSCOPE_OPENAPI_JSON}")
endif()
