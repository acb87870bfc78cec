# Writes the manual page and the completion scripts of the layoutscope program BIN under OUT, in the folders
# they are installed to (share/man/man1, share/bash-completion/completions, ...). Run by the build after each link:
#   cmake -DBIN=build/bin/layoutscope -DOUT=build/share -P cli/write_docs.cmake
foreach(item "man-page;man/man1/layoutscope.1" "completion bash;bash-completion/completions/layoutscope"
             "completion zsh;zsh/site-functions/_layoutscope" "completion fish;fish/vendor_completions.d/layoutscope.fish")
  list(GET item 0 command)
  list(GET item 1 file)
  separate_arguments(args UNIX_COMMAND "${command}")
  get_filename_component(dir ${OUT}/${file} DIRECTORY)
  file(MAKE_DIRECTORY ${dir})
  execute_process(COMMAND ${BIN} ${args} OUTPUT_FILE ${OUT}/${file}.tmp RESULT_VARIABLE status)
  if(NOT status EQUAL 0)
    message(FATAL_ERROR "${BIN} ${command} failed (${status})")
  endif()
  file(RENAME ${OUT}/${file}.tmp ${OUT}/${file})
endforeach()
