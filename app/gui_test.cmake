# ctest driver of the `gui_screenshot` test (cmake -P): runs circle-renderer
# under Xvfb for a few frames with an in-app screenshot and a dump of the
# rendered frame, then gui_shot_check finds the frame 1:1 in the screenshot.
# Inputs: XVFB_RUN, APP, CHECKER, OUT_DIR, MODE (empty or resize).
#
# Two runs: the course's `rgb` with cpuref (gui_shot.png), and `rgby` with
# cpu, which is not symmetric top-to-bottom, so an upside-down image fails.
function(gui_run renderer scene shot frame)
  file(REMOVE ${shot} ${frame})
  execute_process(
    COMMAND ${XVFB_RUN} -a -s "-screen 0 1280x800x24"
            ${APP} --renderer ${renderer} --scene ${scene} --size 256 --frames 5
                   --screenshot ${shot} --dump-frame ${frame}
    RESULT_VARIABLE rc
    TIMEOUT 50)
  if(NOT rc EQUAL 0)
    message(FATAL_ERROR "circle-renderer (${renderer}, ${scene}) under xvfb-run failed (exit ${rc})")
  endif()
  execute_process(COMMAND ${CHECKER} ${shot} ${frame} RESULT_VARIABLE rc)
  if(NOT rc EQUAL 0)
    message(FATAL_ERROR "gui_shot_check failed for ${renderer}, ${scene} (exit ${rc})")
  endif()
endfunction()

# MODE=resize (the `gui_resize` test): render size following the window,
# resized every 2 frames through app_options.h's kResizeCycle (850x800 ->
# 547x613 -> 1x240 -> 681x797 -> 210x480 -> 3x799 -> 850x800 image); every
# new size's first frame and the last frame are checked against cpuref
# (--check), then the final window against the final frame.
if(MODE STREQUAL "resize")
  set(shot ${OUT_DIR}/gui_resize_shot.png)
  set(frame ${OUT_DIR}/gui_resize_frame.png)
  file(REMOVE ${shot} ${frame})
  execute_process(
    COMMAND ${XVFB_RUN} -a -s "-screen 0 1280x800x24"
            ${APP} --renderer cpu --scene snow --size window --frames 14 --resize-every 2 --check
                   --no-vsync --screenshot ${shot} --dump-frame ${frame}
    RESULT_VARIABLE rc OUTPUT_VARIABLE out ERROR_VARIABLE err
    TIMEOUT 80)
  message(STATUS "${out}${err}")
  if(NOT rc EQUAL 0)
    message(FATAL_ERROR "circle-renderer --resize-every failed (exit ${rc})")
  endif()
  foreach(want "at 1x240, cpu vs cpuref: PASS" "at 3x799, cpu vs cpuref: PASS"
               "check: 8 of 8 checks against cpuref passed")
    string(FIND "${out}" "${want}" at)
    if(at EQUAL -1)
      message(FATAL_ERROR "missing in the output: '${want}'")
    endif()
  endforeach()
  execute_process(COMMAND ${CHECKER} ${shot} ${frame} RESULT_VARIABLE rc)
  if(NOT rc EQUAL 0)
    message(FATAL_ERROR "gui_shot_check failed after the resizes (exit ${rc})")
  endif()
  # A window narrower than the 430-pixel panel still leaves a 1-pixel image
  # column (before, the render size stayed 0 and a --frames run never ended).
  execute_process(
    COMMAND ${XVFB_RUN} -a -s "-screen 0 1280x800x24"
            ${APP} --renderer cpu --scene rgby --size window --window-width 320 --window-height 240
                   --frames 3 --check --no-vsync
    RESULT_VARIABLE rc OUTPUT_VARIABLE out ERROR_VARIABLE err
    TIMEOUT 40)
  message(STATUS "${out}${err}")
  string(FIND "${out}" "at 1x240, cpu vs cpuref: PASS" at)
  if(NOT rc EQUAL 0 OR at EQUAL -1)
    message(FATAL_ERROR "narrow window: exit ${rc}, expected a 1x240 image checked against cpuref")
  endif()
  return()
endif()

gui_run(cpuref rgb ${OUT_DIR}/gui_shot.png ${OUT_DIR}/gui_frame.png)
gui_run(cpu rgby ${OUT_DIR}/gui_shot_rgby.png ${OUT_DIR}/gui_frame_rgby.png)
