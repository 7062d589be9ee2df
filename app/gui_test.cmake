# ctest driver of the `gui_screenshot` test (cmake -P): runs circle-renderer
# under Xvfb for a few frames with an in-app screenshot and a dump of the
# rendered frame, then gui_shot_check finds the frame 1:1 in the screenshot.
# Inputs: XVFB_RUN, APP, CHECKER, OUT_DIR, MODE (empty, resize, fps, overlay
# or teaching).

# run_app(OUT WHAT TIMEOUT ARGS...): runs APP with ARGS under Xvfb (one
# 1280x800x24 screen) for at most TIMEOUT seconds, prints its output, fails
# with "WHAT failed (exit N)" unless it exits with 0, and puts its standard
# output in the caller's variable OUT.
function(run_app out what timeout)
  execute_process(
    COMMAND ${XVFB_RUN} -a -s "-screen 0 1280x800x24" ${APP} ${ARGN}
    RESULT_VARIABLE rc OUTPUT_VARIABLE stdout ERROR_VARIABLE stderr
    TIMEOUT ${timeout})
  message(STATUS "${stdout}${stderr}")
  if(NOT rc EQUAL 0)
    message(FATAL_ERROR "${what} failed (exit ${rc})")
  endif()
  set(${out} "${stdout}" PARENT_SCOPE)
endfunction()

# expect_lines(TEXT WANT...): fails unless TEXT contains every WANT.
function(expect_lines text)
  foreach(want IN LISTS ARGN)
    string(FIND "${text}" "${want}" at)
    if(at EQUAL -1)
      message(FATAL_ERROR "missing in the output: '${want}'")
    endif()
  endforeach()
endfunction()

# check_shot(WHY ARGS...): runs gui_shot_check with ARGS; fails with
# "WHY (exit N)" unless it exits with 0.
function(check_shot why)
  execute_process(COMMAND ${CHECKER} ${ARGN} RESULT_VARIABLE rc)
  if(NOT rc EQUAL 0)
    message(FATAL_ERROR "${why} (exit ${rc})")
  endif()
endfunction()

# Two runs: the course's `rgb` with cpuref (gui_shot.png), and `rgby` with
# cpu, which is not symmetric top-to-bottom, so an upside-down image fails.
function(gui_run renderer scene shot frame)
  file(REMOVE ${shot} ${frame})
  run_app(out "circle-renderer (${renderer}, ${scene}) under xvfb-run" 50
          --renderer ${renderer} --scene ${scene} --size 256 --frames 5 --screenshot ${shot} --dump-frame ${frame})
  check_shot("gui_shot_check failed for ${renderer}, ${scene}" ${shot} ${frame})
endfunction()

# MODE=fps (the `gui_fps` test): a 30-frame run in the default window. The
# panel must show a non-zero frame rate equal to the summary's FPS (the app
# prints the panel's figure too), its whole content (nothing cut off at the
# bottom, by the app's own measure and in the screenshot's pixels), and the
# image drawn 1:1 as its label says.
if(MODE STREQUAL "fps")
  set(shot ${OUT_DIR}/gui_fps_shot.png)
  set(frame ${OUT_DIR}/gui_fps_frame.png)
  file(REMOVE ${shot} ${frame})
  run_app(out "circle-renderer --frames 30" 60
          --renderer cpu --scene rgby --size 256 --frames 30 --screenshot ${shot} --dump-frame ${frame})
  if(NOT out MATCHES "30 frames of rgby at 256x256 with cpu in [0-9.]+ s: ([0-9]+\\.[0-9]) FPS")
    message(FATAL_ERROR "no FPS summary in the output")
  endif()
  set(fps ${CMAKE_MATCH_1})
  if(NOT out MATCHES "panel: ([0-9]+\\.[0-9]) frames/s rendered; content fits the window \\([0-9]+ of 800 px high\\); image drawn 1:1")
    message(FATAL_ERROR "the panel line is missing or says the content is cut off or not drawn 1:1")
  endif()
  set(panel_fps ${CMAKE_MATCH_1})
  if(NOT panel_fps STREQUAL fps OR panel_fps STREQUAL "0.0")
    message(FATAL_ERROR "panel shows ${panel_fps} frames/s, the summary says ${fps} FPS")
  endif()
  check_shot("gui_shot_check failed on the 30-frame screenshot" ${shot} ${frame} --panel-width 430 --panel-uncut)
  return()
endif()

# MODE=overlay (the `gui_overlay` test): --overlay tiles,diff from the start
# (diff runs a check of the first and last frame); the panel shows both
# colour legends: the diff's magenta (beyond the tolerance) and the tile
# scale's blue and yellow ends.
if(MODE STREQUAL "overlay")
  set(shot ${OUT_DIR}/gui_overlay_shot.png)
  file(REMOVE ${shot})
  run_app(out "circle-renderer --overlay tiles,diff" 60
          --renderer cpu --scene rand10k --size 512 --frames 3 --overlay tiles,diff --no-vsync --screenshot ${shot})
  expect_lines("${out}" "overlay: tiles, 16 x 16 tiles of 32 px, busiest tile "
                        "overlay: diff of frame 2 vs cpuref, PASS" "image drawn 1:1")
  check_shot("gui_shot_check: a legend colour is missing or the panel is cut off"
             ${shot} - --panel-width 430 --panel-uncut --panel-has 255,0,255 --panel-has 255,255,0 --panel-has 0,0,255)
  return()
endif()

# MODE=teaching (the `gui_teaching` test): the Teaching tab with the tile
# map of 16x16 tiles by binning's box test (listed) and the per-warp map,
# then the exact test (hit). The panel shows the order demo's difference
# (magenta) and both ends of the warp legend (red: 1 lane, green: 32).
if(MODE STREQUAL "teaching")
  set(shot ${OUT_DIR}/gui_teaching_shot.png)
  file(REMOVE ${shot})
  run_app(out "circle-renderer --overlay listed,warps" 60
          --renderer cpu --scene rand10k --size 512 --frames 3 --overlay listed,warps --tab teaching
          --no-vsync --no-settings --screenshot ${shot})
  expect_lines("${out}" "overlay: tiles, listed, 32 x 32 tiles of 16 px, busiest tile "
                        "circle-tile pairs listed, " "overlay: warps, frame 2, ")
  check_shot("gui_shot_check: the order demo or the warp legend is missing"
             ${shot} - --panel-width 430 --panel-has 255,0,255 --panel-has 255,0,0 --panel-has 0,204,0)
  run_app(out "circle-renderer --overlay hit" 60
          --renderer cpu --scene rand10k --size 512 --frames 2 --overlay hit --no-vsync --no-settings)
  expect_lines("${out}" "overlay: tiles, hit, 32 x 32 tiles of 16 px")
  # the blends each pixel needs (exact early stopping): rand100k's median pixel meets after 29 blends
  run_app(out "circle-renderer --overlay blends" 120
          --renderer cpu --scene rand100k --size 256 --frames 2 --overlay blends --tab teaching --no-vsync --no-settings)
  expect_lines("${out}" "overlay: blends, frame 1, median 29 blends needed a pixel (of 867 covering), "
                        "0 pixels differ from cpuref's")
  return()
endif()

# MODE=resize (the `gui_resize` test): render size following the window,
# resized every 2 frames through app_options.h's kResizeCycle (850x800 ->
# 547x613 -> 1x240 -> 681x797 -> 210x480 -> 3x799 -> 850x800 image); every
# new size's first frame and the last frame are checked against cpuref
# (--check), then the final window against the final frame.
if(MODE STREQUAL "resize")
  set(shot ${OUT_DIR}/gui_resize_shot.png)
  set(frame ${OUT_DIR}/gui_resize_frame.png)
  file(REMOVE ${shot} ${frame})
  run_app(out "circle-renderer --resize-every" 80
          --renderer cpu --scene snow --size window --frames 14 --resize-every 2 --check
          --no-vsync --screenshot ${shot} --dump-frame ${frame})
  expect_lines("${out}" "at 1x240, cpu vs cpuref: PASS" "at 3x799, cpu vs cpuref: PASS"
                        "check: 8 of 8 checks against cpuref passed")
  check_shot("gui_shot_check failed after the resizes" ${shot} ${frame})
  # A window narrower than the 430-pixel panel still leaves a 1-pixel image
  # column (before, the render size stayed 0 and a --frames run never ended).
  run_app(out "circle-renderer in a narrow window" 40
          --renderer cpu --scene rgby --size window --window-width 320 --window-height 240 --frames 3 --check --no-vsync)
  expect_lines("${out}" "at 1x240, cpu vs cpuref: PASS")
  return()
endif()

gui_run(cpuref rgb ${OUT_DIR}/gui_shot.png ${OUT_DIR}/gui_frame.png)
gui_run(cpu rgby ${OUT_DIR}/gui_shot_rgby.png ${OUT_DIR}/gui_frame_rgby.png)
