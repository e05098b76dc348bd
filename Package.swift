// swift-tools-version:6.0
import PackageDescription

let package = Package(
    name: "rotationd",
    products: [
        .executable(name: "rotationd", targets: ["rotationd"]),
        .executable(name: "rotwatch", targets: ["rotwatch"]),
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
        .systemLibrary(
            name: "CV4L2",
            providers: [.apt(["linux-libc-dev"])]
        ),
        .target(name: "RotationEngine", linkerSettings: [.linkedLibrary("m")]),
        .target(name: "RotationSensors", dependencies: ["RotationEngine", "CIIO", "CIIOEvents", "CUDev", "CWake"]),
        .target(name: "RotationCameras", dependencies: ["RotationEngine", "CUDev", "CV4L2"]),
        .target(name: "RotationService", dependencies: ["RotationEngine"]),
        .target(name: "RotationClient", dependencies: ["RotationEngine"]),
        .executableTarget(name: "rotationd", dependencies: ["RotationEngine", "RotationSensors", "RotationCameras", "RotationService"]),
        .executableTarget(name: "rotwatch", dependencies: ["RotationEngine", "RotationClient"]),
        .executableTarget(name: "engine-bench", dependencies: ["RotationEngine"]),
        .executableTarget(name: "fanout-bench", dependencies: ["RotationEngine", "RotationService"]),
        .executableTarget(name: "follow-rotation", dependencies: ["RotationEngine", "RotationClient"]),
        // One fuzz target per parser of outside input (Docs/fuzzing.md). Built as usual, each replays the inputs
        // it is given (the tests replay the corpora in Fuzz/corpus); built by `make fuzz`, with
        // -sanitize=fuzzer,address and -D FUZZING, each is a libFuzzer fuzzer.
        .target(name: "FuzzSupport", path: "Fuzz/FuzzSupport"),
        .executableTarget(name: "fuzz-json", dependencies: ["RotationEngine", "FuzzSupport"], path: "Fuzz/fuzz-json"),
        .executableTarget(name: "fuzz-client-command", dependencies: ["RotationEngine", "FuzzSupport"], path: "Fuzz/fuzz-client-command"),
        .executableTarget(name: "fuzz-server-message", dependencies: ["RotationEngine", "FuzzSupport"], path: "Fuzz/fuzz-server-message"),
        .executableTarget(name: "fuzz-trace", dependencies: ["RotationEngine", "FuzzSupport"], path: "Fuzz/fuzz-trace"),
        .executableTarget(name: "fuzz-sysfs-number", dependencies: ["RotationSensors", "FuzzSupport"], path: "Fuzz/fuzz-sysfs-number"),
        .executableTarget(name: "fuzz-mount-matrix", dependencies: ["RotationEngine", "RotationSensors", "FuzzSupport"], path: "Fuzz/fuzz-mount-matrix"),
        .executableTarget(name: "fuzz-udev-properties", dependencies: ["RotationEngine", "RotationCameras", "FuzzSupport"],
                          path: "Fuzz/fuzz-udev-properties"),
        .executableTarget(name: "fuzz-v4l2-controls", dependencies: ["RotationEngine", "RotationCameras", "FuzzSupport"],
                          path: "Fuzz/fuzz-v4l2-controls"),
        // What the test targets share: where the built executables are, and their sanitizer reports.
        .target(name: "TestSupport", dependencies: ["RotationEngine"], path: "Tests/TestSupport"),
        .testTarget(name: "RotationEngineTests", dependencies: ["RotationEngine"]),
        .testTarget(name: "RotationSensorsTests", dependencies: ["RotationEngine", "RotationSensors", "TestSupport"]),
        .testTarget(name: "RotationCamerasTests", dependencies: ["RotationEngine", "RotationCameras", "TestSupport"]),
        .testTarget(name: "RotationServiceTests", dependencies: ["RotationEngine", "RotationClient", "RotationService", "TestSupport"]),
        .testTarget(name: "PackagingTests", dependencies: ["TestSupport"]),
        .testTarget(name: "FuzzTests", dependencies: ["TestSupport"]),
    ]
)
