"""test-python-errors.py SOURCE_DIR PLUGIN_DIR: the Python examples in
examples/python, each run with a bad command line, a missing file or
without PyGObject: status 1 or 2, a line or two on stderr that names the
problem, and no traceback. No GPU needed: the bad input is found before
anything reaches the GPU. Skipped (77) where python3-gi is missing, unless
CUDAREDUCE_REQUIRE_PYTHON=1.

Each program runs with HOME, XDG_CACHE_HOME and MPLCONFIGDIR in a temporary
folder, so that nothing is written to the user's."""
import importlib.util
import os
import subprocess
import sys
import tempfile

try:
    import gi  # noqa: F401
    import numpy  # noqa: F401
except ImportError as e:
    if os.environ.get("CUDAREDUCE_REQUIRE_PYTHON") == "1":
        print("FAIL: python3-gi or numpy missing:", e)
        sys.exit(1)
    print("SKIP: python3-gi or numpy missing:", e)
    sys.exit(77)

source, plugin_dir = sys.argv[1], sys.argv[2]
examples = os.path.join(source, "examples", "python")
failures = []

with tempfile.TemporaryDirectory() as tmp:
    env = dict(os.environ, HOME=tmp, XDG_CACHE_HOME=os.path.join(tmp, "cache"),
               MPLCONFIGDIR=os.path.join(tmp, "matplotlib"),
               GST_PLUGIN_PATH_1_0=plugin_dir,
               GST_REGISTRY_1_0=os.path.join(tmp, "registry.bin"))
    def without(module):
        """@env with a @module that cannot be imported, found before the
        system's."""
        hidden = os.path.join(tmp, "no-" + module)
        os.mkdir(hidden)
        with open(os.path.join(hidden, module + ".py"), "w") as f:
            f.write(f"raise ModuleNotFoundError(\"No module named '{module}'\")\n")
        return dict(env, PYTHONPATH=hidden)

    no_gi, no_numpy, no_matplotlib = without("gi"), without("numpy"), without("matplotlib")
    levels = os.path.join(tmp, "levels.csv")
    with open(levels, "w") as f:
        f.write("time_s,ch0_db\n0.000,-3.00\n")
    png = os.path.join(tmp, "l.png")
    cases = [
        # (program, arguments, environment, status, what stderr says)
        ("bus_results.py", ["sumsq", "abc"], env, 2, "'abc' is not a channel count"),
        ("bus_results.py", ["sumsq", "-3"], env, 2, "'-3' is not a channel count"),
        ("bus_results.py", ["sumsq", "2", "3"], env, 2, "unrecognized arguments: 3"),
        ("bus_results.py", ["nosuch"], env, 1, 'no built-in monoid named "nosuch"'),
        ("bus_results.py", ["/nonexistent/x.monoid"], env, 1, "/nonexistent/x.monoid"),
        ("buffer_meta.py", ["sumsq", "0"], env, 2, "'0' is not a channel count"),
        ("buffer_meta.py", ["nosuch"], env, 1, 'no built-in monoid named "nosuch"'),
        ("tensors_to_numpy.py", ["mean_var", "-3"], env, 2, "'-3' is not a channel count"),
        ("tensors_to_numpy.py", ["nosuch"], env, 1, 'no built-in monoid named "nosuch"'),
        ("demo_audio.py", ["/nonexistent/dir/x.wav"], env, 1,
         "cannot write /nonexistent/dir/x.wav: No such file"),
        ("demo_audio.py", [os.path.join(tmp, "x.wav"), "abc"], env, 2, "'abc' is not a length"),
        ("demo_audio.py", [os.path.join(tmp, "x.wav"), "nan"], env, 2, "'nan' is not a length"),
        ("demo_audio.py", [], env, 2, "required: OUT.wav"),
        ("plot_levels.py", ["/nonexistent.wav", png], env, 2,
         "cannot read /nonexistent.wav: no such file"),
        ("plot_levels.py", [tmp, png], env, 2, "not a readable file"),
        ("plot_levels.py", ["--plot", "/etc/passwd", png], env, 1,
         "/etc/passwd is not a CSV of levels"),
        ("plot_levels.py", ["--csv", "--plot", levels, png], env, 2, "not allowed with"),
        ("plot_levels.py", [levels], env, 2, "required: OUT"),
        ("plot_signalstats.py", ["/nonexistent.mp4", png], env, 2,
         "cannot read /nonexistent.mp4: no such file"),
        ("plot_signalstats.py", ["--plot", "/etc/passwd", png], env, 1,
         "/etc/passwd is not a CSV of signalstats"),
        ("plot_signalstats.py", ["--pattern", "smpte"], env, 2, "required: [IN] OUT"),
        ("plot_signalstats.py", ["--pattern", "smpte", png, png], env, 2, "give OUT"),
        ("plot_signalstats.py", ["--pattern", "smpte", "--plot", levels, png], env, 2,
         "do not go together"),
        ("plot_signalstats.py", ["--pattern", "smpte", png], no_gi, 1,
         "install python3-gi and gir1.2-gstreamer-1.0"),
        ("loudness.py", [], env, 2, "give AUDIO_FILE [OUT.csv], or --test SIGNAL [OUT.csv]"),
        ("loudness.py", ["--test", "square"], env, 2, "invalid choice: 'square'"),
        ("loudness.py", ["--test", "sine", "a.csv", "b.csv"], env, 2, "give AUDIO_FILE"),
        ("loudness.py", ["/nonexistent.wav"], env, 2, "cannot read /nonexistent.wav: no such file"),
        ("loudness.py", ["--test", "sine", "--seconds", "-1"], env, 2,
         "'-1' is not a length in seconds"),
        ("loudness.py", ["--test", "sine", "--level", "6"], env, 2,
         "'6' is not a level in dBFS"),
        ("loudness.py", ["--test", "sine"], no_gi, 1, "install python3-gi and gir1.2-gstreamer-1.0"),
    ] + [(program, args, no_gi, 1, "install python3-gi and gir1.2-gstreamer-1.0")
         for program, args in (("bus_results.py", []), ("buffer_meta.py", []),
                               ("plot_levels.py", [levels, png]))] + [
        ("tensors_to_numpy.py", [], no_gi, 1, "install python3-gi, gir1.2-gstreamer-1.0"),
        ("tensors_to_numpy.py", [], no_numpy, 1, "No module named 'numpy'"),
        ("demo_audio.py", [os.path.join(tmp, "x.wav")], no_numpy, 1, "install python3-numpy"),
        ("plot_levels.py", ["--plot", levels, png], no_matplotlib, 1,
         "drawing needs python3-matplotlib"),
    ]
    # Saving a plot where no folder is needs matplotlib (the test packages
    # leave it out: it comes with the benchmarks); without it, the case of
    # no matplotlib above says so instead.
    if importlib.util.find_spec("matplotlib"):
        cases.append(("plot_levels.py", ["--plot", levels, os.path.join(tmp, "no", "l.png")],
                      env, 1, "No such file or directory"))
    else:
        print("NOTE: matplotlib missing: saving into a missing folder was not tested")
    for program, args, case_env, status, says in cases:
        p = subprocess.run([sys.executable, os.path.join(examples, program), *args],
                           env=case_env, capture_output=True, text=True, timeout=60)
        lines = p.stderr.strip().splitlines()
        what = f"{program} {' '.join(args)} ({case_env.get('PYTHONPATH', 'all modules')})"
        if (p.returncode != status or says not in p.stderr or "Traceback" in p.stderr
                or not 1 <= len(lines) <= 2):
            failures.append(what)
            print(f"FAIL: {what}: status {p.returncode}, not {status}, stderr {p.stderr!r}, "
                  f"expected {says!r}")
    # --help is help, not a monoid's name.
    p = subprocess.run([sys.executable, os.path.join(examples, "bus_results.py"), "--help"],
                       env=env, capture_output=True, text=True, timeout=60)
    if p.returncode != 0 or "usage: bus_results" not in p.stdout:
        failures.append("bus_results.py --help")
        print(f"FAIL: bus_results.py --help: status {p.returncode}, {p.stdout!r} {p.stderr!r}")

print("python example errors:", "FAILED" if failures else "ok")
sys.exit(1 if failures else 0)
