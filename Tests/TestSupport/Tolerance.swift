/// Every allowance the tests make for a loaded machine, in seconds: how long a step or a read waits for what
/// comes at once on an idle machine, and how late a test lets the service be.
///
/// On an idle machine each of these is far more than needed; the tests run beside builds and other test processes
/// on two cores, where a process can wait hundreds of milliseconds for a core. A latency limit here is a promise
/// of the service's (rotationd publishes a turn within 0.3 s of its end) with that allowance in it; a timeout is
/// only how long a test waits before it gives up, and a longer one never makes a test pass that should fail.
public enum Tolerance {
    // MARK: How long a step waits

    /// The default timeout of a `wait`, `connect` and `waitFile` step, and of a test socket's reads: something
    /// that follows at once what the test just did (a pose set, a client connected, a file written, a command
    /// sent) or the program's start.
    public static let reply = 5.0
    /// What follows a change the service takes its time over: its pace changing after the device was still for a
    /// while, the first of a driver zoo sensor's poses (discovery, then the sensor's own start-up), a socket that
    /// appears after a slower start (sanitizers, a fixture with several devices); a process's first line, or its
    /// end after a short run; the service serving, a unit active.
    public static let slowReply = 10.0
    /// A `--list` run's listing: discovery, then the sensor read at rest.
    public static let listing = 8.0
    /// A pose of a played trace, a few seconds into it, or a setting the service makes once the device has been
    /// still for a few seconds (3 s of stillness, the still pace, the hysteresis).
    public static let tracePose = 15.0
    /// A pose of a played trace that holds still for 8 s and then 4 s before its turns.
    public static let longTracePose = 25.0
    /// A program that runs its course and exits by itself (a probe of the emulated kernel's rules).
    public static let exit = 20.0
    /// A `rotationd --report` of a few seconds, to its end: its listing (`listing`), its recording, the replay and
    /// the packing.
    public static let report = 30.0
    /// A Python probe of the emulated kernel (iio-events.py): its start-up and steps, and its end after a trace of
    /// 20 s was played into it.
    public static let probe = 30.0
    /// `--record` onto a 4 KiB disk: the disk full and the recording stopped.
    public static let diskFills = 20.0
    /// The driver waits for a signal the test itself gives (a file it writes once it has checked the service).
    public static let testSignal = 60.0
    /// iio-sensor-proxy's first orientation: the proxy and its bus start, then monitor-sensor claims the sensor.
    public static let sensorProxyStart = 15.0

    // MARK: Processes the service and packaging tests start themselves

    /// A client tool run to its end, or what it prints while a replay of a few seconds runs; a restarted unit.
    public static let toolRun = 15.0
    /// A replay of a trace of a few seconds to its end, a client following it to the last change, and a client
    /// program (a Python client) run to its end.
    public static let replayRun = 20.0
    /// A longer run to its end: a replay that many clients read, an example program, a `make` step, the journal.
    public static let longRun = 30.0
    /// A build or an install (`make`, `systemd-analyze verify`, `localedef`, `dpkg` installing the package), and a
    /// booted container's start.
    public static let build = 60.0
    /// lintian checking one package, to its end.
    public static let lintian = 300.0
    /// A command run inside a booted container to its end (systemctl, a test of a file), and the test bed set up
    /// there.
    public static let containerCommand = 20.0
    /// A booted container's systemd shutting down after SIGTERM, before it is killed.
    public static let containerHalt = 15.0
    /// A command started inside a booted container, in the background.
    public static let containerRun = 120.0
    /// The test bed's driver inside a booted container, from its start to its end (the whole test).
    public static let containerDriver = 150.0
    /// How long a read waits for one more line before it takes a drained stream as done.
    public static let quiet = 1.0
    /// A closed connection seen by its clients.
    public static let closeSeen = 2.0

    // MARK: How late the service may be

    /// rotationd's rotation after a turn of the played trace ended, beside a neighbour (a raw poller or
    /// iio-sensor-proxy); the nearest-rank 95th percentile of the four turns.
    public static let rotationdBesideNeighbour = 0.3
    /// iio-sensor-proxy's report of a turn after it ended (its own 0.1 s polling, monitor-sensor's D-Bus round trip).
    public static let sensorProxyLatency = 1.5
    /// A turn made while the system slept, published after the wake.
    public static let wakeToPublish = 0.5
    /// A turn made awake, published after it ended, by a sensor read at the still pace or one its motion event
    /// wakes (the still pace's interval and the turn test's time).
    public static let turnAwake = 2.0
    /// A turn published after it ended by a sensor whose hub honours the hysteresis (it delivers the turn at once).
    public static let turnWithHysteresis = 0.5
    /// Stopping the sampling once the last client left (the pending buffer read is cancelled): half the buffer's
    /// 500 ms of silence, so that a busy machine delaying the sensor thread's exit is not mistaken for a read that
    /// was not cancelled.
    public static let samplingStop = 0.25
    /// A camera plugged in or out, announced to a connected client.
    public static let cameraHotPlug = 1.0
    /// A client's greeting while the service gives back its start-up pages (`/proc/self/smaps` may be slow).
    public static let greeting = 1.5
    /// `systemctl stop` of the packaged service (SIGTERM, and the service ends its loop at once).
    public static let serviceStop = 2.0
    /// The median lateness of the changes a prompt socket reader receives during a fast replay (the fan-out).
    public static let fanoutMedian = 0.05
    /// Two clocks read one after the other (CLOCK_MONOTONIC, then CLOCK_BOOTTIME): a preemption between them.
    public static let clockReadsApart = 0.01
    /// How much shorter than the buffer's 500 ms of silence a `feed` writer's longest pause may be when rotationd
    /// fell back to polling (the two sides' clocks see the pause a little differently): below it the fallback was
    /// unprompted.
    public static let feederPause = 0.4

    // MARK: The emulated suspend

    /// How far the program's CLOCK_MONOTONIC may move across a suspend (none: it is held back by the time slept).
    public static let suspendClock = 0.1
    /// How much shorter than the time it came late a late suspend may have held the trace.
    public static let lateSuspendHold = 0.1
    /// A CLOCK_REALTIME timerfd cancelled at the wake, read by the program after it.
    public static let timerfdCancel = 0.5
    /// CLOCK_BOOTTIME − CLOCK_MONOTONIC grown by the time slept.
    public static let bootClockGrowth = 0.05
    /// A sleep or poll() across a suspend, measured on CLOCK_MONOTONIC, and on CLOCK_BOOTTIME.
    public static let monotonicSleep = 0.1
    public static let boottimeSleep = 0.2
}
