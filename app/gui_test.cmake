# ctest driver of the `gui_screenshot` test (cmake -P): runs circle-renderer
# under Xvfb for a few frames with an in-app screenshot and a dump of the
# rendered frame, then gui_shot_check finds the frame 1:1 in the screenshot.
# Inputs: XVFB_RUN, APP, CHECKER, OUT_DIR.
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

gui_run(cpuref rgb ${OUT_DIR}/gui_shot.png ${OUT_DIR}/gui_frame.png)
gui_run(cpu rgby ${OUT_DIR}/gui_shot_rgby.png ${OUT_DIR}/gui_frame_rgby.png)
