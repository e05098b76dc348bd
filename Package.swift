// swift-tools-version:6.0
import PackageDescription

let package = Package(
    name: "rotationd",
    products: [
        .executable(name: "rotationd", targets: ["rotationd"]),
        .executable(name: "rotwatch", targets: ["rotwatch"]),
        .library(name: "RotationProtocol", targets: ["RotationProtocol"]),
        .library(name: "RotationEngine", targets: ["RotationEngine"]),
        .library(name: "RotationClient", targets: ["RotationClient"]),
    ],
    targets: [
        .systemLibrary(
            name: "CIIO",
            pkgConfig: "libiio",
            providers: [.apt(["libiio-dev"])]
        ),
        .systemLibrary(
            name: "CUDev",
            pkgConfig: "libudev",
            providers: [.apt(["libudev-dev"])]
        ),
        .systemLibrary(
            name: "CIIOEvents",
            providers: [.apt(["linux-libc-dev"])]
        ),
        // The timerfd that learns of a resume (<sys/timerfd.h>, libc6-dev).
        .systemLibrary(name: "CWake"),
        .systemLibrary(name: "CInput"),
        // The tablet-mode switch's crash handler (<signal.h>, <linux/input.h>): the switch's 0 written as rotationd dies.
        .systemLibrary(name: "CFailSafe"),
        // malloc_trim (<malloc.h>, libc6-dev), for the resident trim.
        .systemLibrary(name: "CMalloc"),
        .systemLibrary(
            name: "CV4L2",
            providers: [.apt(["linux-libc-dev"])]
        ),
        // The wire protocol and the values it carries; what a client needs, without the engine.
        .target(name: "RotationProtocol"),
        // The system layer every module with I/O stands on: errno, the clocks, the log, files, threads, udev.
        .target(name: "RotationSystem", dependencies: ["CUDev"]),
        .target(name: "RotationEngine", dependencies: ["RotationProtocol"], linkerSettings: [.linkedLibrary("m")]),
        .target(name: "RotationSensors", dependencies: ["RotationProtocol", "RotationEngine", "RotationSystem", "CIIO", "CIIOEvents", "CUDev", "CWake", "CInput"]),
        .target(name: "RotationCameras", dependencies: ["RotationProtocol", "RotationSystem", "CUDev", "CV4L2"]),
        .target(name: "RotationService", dependencies: ["RotationProtocol", "RotationEngine", "RotationSystem"]),
        // A blocking connection to the service's socket, line by line: the client library's, and what rotationd --report
        // records through, without the client library's asynchronous stream (and the concurrency runtime it links).
        .target(name: "RotationConnection", dependencies: ["RotationProtocol", "RotationSystem"]),
        .target(name: "RotationClient", dependencies: ["RotationProtocol", "RotationConnection", "RotationSystem"]),
        // The picture of a recording: samples and the changes published, with their rules, in; SVG text out; no I/O.
        .target(name: "RotationPicture", dependencies: ["RotationProtocol", "RotationEngine"]),
        // The live service's wiring and policy, which the rotationd executable runs after parsing its options.
        .target(name: "RotationDaemon", dependencies: ["RotationProtocol", "RotationEngine", "RotationSystem", "RotationSensors", "RotationCameras",
                                                       "RotationService", "RotationConnection", "RotationPicture", "CMalloc", "CInput",
                                                       "CFailSafe"]),
        .executableTarget(name: "rotationd", dependencies: ["RotationDaemon", "RotationProtocol", "RotationEngine", "RotationSystem"]),
        .executableTarget(name: "rotwatch", dependencies: ["RotationProtocol", "RotationSystem", "RotationClient"]),
        .executableTarget(name: "engine-bench", dependencies: ["RotationProtocol", "RotationEngine", "RotationSystem"]),
        .executableTarget(name: "fanout-bench", dependencies: ["RotationProtocol", "RotationEngine", "RotationSystem", "RotationService"]),
        .executableTarget(name: "follow-rotation", dependencies: ["RotationProtocol", "RotationSystem", "RotationClient"]),
        // One fuzz target per parser of outside input (Docs/fuzzing.md). Built as usual, each replays the inputs
        // it is given (the tests replay the corpora in Fuzz/corpus); built by `make fuzz`, with
        // -sanitize=fuzzer,address and -D FUZZING, each is a libFuzzer fuzzer.
        .target(name: "FuzzSupport", path: "Fuzz/FuzzSupport"),
        .executableTarget(name: "fuzz-json", dependencies: ["RotationProtocol", "FuzzSupport"], path: "Fuzz/fuzz-json"),
        .executableTarget(name: "fuzz-client-command", dependencies: ["RotationProtocol", "FuzzSupport"], path: "Fuzz/fuzz-client-command"),
        .executableTarget(name: "fuzz-server-message", dependencies: ["RotationProtocol", "FuzzSupport"], path: "Fuzz/fuzz-server-message"),
        .executableTarget(name: "fuzz-trace", dependencies: ["RotationProtocol", "RotationEngine", "FuzzSupport"], path: "Fuzz/fuzz-trace"),
        .executableTarget(name: "fuzz-sysfs-number", dependencies: ["RotationSensors", "FuzzSupport"], path: "Fuzz/fuzz-sysfs-number"),
        .executableTarget(name: "fuzz-mount-matrix", dependencies: ["RotationProtocol", "RotationSensors", "FuzzSupport"], path: "Fuzz/fuzz-mount-matrix"),
        .executableTarget(name: "fuzz-udev-properties", dependencies: ["RotationProtocol", "RotationCameras", "FuzzSupport"],
                          path: "Fuzz/fuzz-udev-properties"),
        .executableTarget(name: "fuzz-v4l2-controls", dependencies: ["RotationProtocol", "RotationCameras", "FuzzSupport"],
                          path: "Fuzz/fuzz-v4l2-controls"),
        // What the test targets share: where the built executables are, and their sanitizer reports.
        .target(name: "TestSupport", dependencies: ["RotationProtocol", "RotationSystem"], path: "Tests/TestSupport"),
        .testTarget(name: "RotationEngineTests", dependencies: ["RotationProtocol", "RotationEngine"]),
        .testTarget(name: "RotationSensorsTests", dependencies: ["RotationProtocol", "RotationEngine", "RotationSystem", "RotationSensors", "TestSupport"]),
        .testTarget(name: "RotationCamerasTests", dependencies: ["RotationProtocol", "RotationCameras", "TestSupport"]),
        .testTarget(name: "RotationServiceTests", dependencies: ["RotationProtocol", "RotationEngine", "RotationClient", "RotationService", "TestSupport"]),
        .testTarget(name: "RotationPictureTests", dependencies: ["RotationProtocol", "RotationEngine", "RotationPicture", "TestSupport"]),
        .testTarget(name: "PackagingTests", dependencies: ["TestSupport"]),
        .testTarget(name: "FuzzTests", dependencies: ["TestSupport"]),
    ]
)
