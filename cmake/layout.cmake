# The fence between the floors of ctl/ (ctl/floors.txt).  No folder has the
# repository root on its include path: each target gets a directory of its
# own in the build tree, holding one symbolic link per folder it may
# include from ("bench" -> ctl/bench, "proto" -> proto), and that directory
# and include/ are its whole include path.  A header of a higher floor is
# then not found, and the build fails there.

# Reads ctl/floors.txt into SB_STAGES (the folders, floor by floor),
# SB_STAGE_FLOOR_<name> and SB_STAGE_SEES_<name>.
function(sb_read_floors)
  file(STRINGS ${CMAKE_SOURCE_DIR}/ctl/floors.txt lines REGEX "^[0-9]")
  set(stages "")
  foreach(line IN LISTS lines)
    string(REGEX MATCH "^([0-9]+)[ \t]+([a-z]+)[ \t]+([a-z]+)" _ "${line}")
    list(APPEND stages ${CMAKE_MATCH_2})
    set(SB_STAGE_FLOOR_${CMAKE_MATCH_2} ${CMAKE_MATCH_1} PARENT_SCOPE)
    set(SB_STAGE_SEES_${CMAKE_MATCH_2} ${CMAKE_MATCH_3} PARENT_SCOPE)
  endforeach()
  set(SB_STAGES ${stages} PARENT_SCOPE)
endfunction()

# sb_include_view(TARGET NAME DIR [NAME DIR]...): TARGET's include path is
# include/ and a view holding NAME -> DIR for each pair, nothing else.
function(sb_include_view target)
  set(view ${CMAKE_BINARY_DIR}/include-views/${target})
  file(REMOVE_RECURSE ${view})
  file(MAKE_DIRECTORY ${view})
  set(args ${ARGN})
  while(args)
    list(POP_FRONT args name dir)
    file(CREATE_LINK ${dir} ${view}/${name} SYMBOLIC)
  endwhile()
  target_include_directories(${target} PRIVATE ${view} ${CMAKE_SOURCE_DIR}/include)
endfunction()

# The folders a stage may include from, as NAME DIR pairs: its own, those
# on lower floors, and proto/ ("below"); or its own and base/ ("api": the
# public API is on every path).
function(sb_stage_sees stage out)
  set(pairs ${stage} ${CMAKE_SOURCE_DIR}/ctl/${stage})
  if(SB_STAGE_SEES_${stage} STREQUAL "api")
    list(APPEND pairs base ${CMAKE_SOURCE_DIR}/ctl/base)
  elseif(SB_STAGE_SEES_${stage} STREQUAL "below")
    list(APPEND pairs proto ${CMAKE_SOURCE_DIR}/proto)
    foreach(s IN LISTS SB_STAGES)
      if(SB_STAGE_FLOOR_${s} LESS SB_STAGE_FLOOR_${stage})
        list(APPEND pairs ${s} ${CMAKE_SOURCE_DIR}/ctl/${s})
      endif()
    endforeach()
  endif()
  set(${out} ${pairs} PARENT_SCOPE)
endfunction()
