import Testing
@testable import RotationEngine
import RotationProtocol

/// The camera to open: the rules that pick it for a user, and the memory of arrivals and choices they read.
@Suite("Preferred camera")
struct PreferredCameraTests {
    static let front = Camera(name: "front", facing: .front, mount: 0, device: "/dev/video0", source: .default,
                              libcamera: #"\_SB_.PCI0.XHC_.RHUB.HS06-6:1.0-0408:5473"#, busPath: "pci-0000:00:14.0-usb-0:6:1.0")
    static let ir = Camera(name: "front2", facing: .front, mount: 0, device: "/dev/video4", source: .default,
                           libcamera: #"\_SB_.PCI0.XHC_.RHUB.HS06-6:1.2-0408:5473"#, busPath: "pci-0000:00:14.0-usb-0:6:1.2",
                           infrared: true)
    static let back = Camera(name: "back", facing: .back, mount: 90, device: "/dev/v4l-subdev2", source: .default,
                             libcamera: #"\_SB_.PCI0.I2C3.CAM1"#)
    static let webcam = Camera(name: "external", facing: .external, mount: 0, device: "/dev/video2", source: .default,
                               busPath: "pci-0000:00:14.0-usb-0:1:1.0")
    /// The same model on another port: another camera.
    static let webcam2 = Camera(name: "external2", facing: .external, mount: 0, device: "/dev/video6", source: .default,
                                busPath: "pci-0000:00:14.0-usb-0:2:1.0")
    static let world = Camera(name: "world", facing: .front, mount: 0, source: .config, panel: .base)

    static func pick(_ cameras: [Camera], _ memory: CameraMemory, uid: UInt32 = 1000, fold: PostureState = .unknown) -> PreferredCamera.Pick? {
        PreferredCamera.pick(cameras: cameras, state: DeviceState(rotation: .normal, tilt: .vertical, flat: false, inputs: .accel, fold: fold),
                             arrival: memory.arrival(among: cameras), choice: memory.choice(for: uid))
    }

    @Test("with no arrival and no choice, the built-in camera facing the user; never an infrared one; else any camera for pictures; else none")
    func withoutAnyChoice() {
        var memory = CameraMemory()
        memory.observe([Self.ir, Self.front, Self.back], now: 0)
        #expect(Self.pick([Self.ir, Self.front, Self.back], memory) == .init(name: "front", rule: .facingUser))
        #expect(Self.pick([Self.ir, Self.back], memory) == .init(name: "back", rule: .anyPicture))
        #expect(Self.pick([Self.ir, Self.webcam], memory) == .init(name: "external", rule: .anyPicture))
        #expect(Self.pick([Self.ir], memory) == nil)
        #expect(Self.pick([], memory) == nil)
    }

    @Test("where the fold tells the direction, the camera looking forward faces the user: folded into a tablet, the base's camera looks away")
    func directionFromTheFold() {
        let memory = CameraMemory()
        // Folded back: the display's front camera looks forward; the base's top-face camera backward.
        let tablet = PostureState(posture: .tablet, hinge: 360, heldHinge: 360)
        #expect(Self.pick([Self.world, Self.front], memory, fold: tablet)?.name == "front")
        // Closed: the front camera is covered, so none faces the user; the back camera takes pictures.
        let closed = PostureState(posture: .closed, hinge: 0, heldHinge: 0)
        #expect(Self.pick([Self.front, Self.back], memory, fold: closed) == .init(name: "back", rule: .anyPicture))
        // Opened as a laptop: the base camera at 110° from the display looks sideways, the display's forward.
        let laptop = PostureState(posture: .laptop, hinge: 110, heldHinge: 110)
        #expect(Self.pick([Self.world, Self.front], memory, fold: laptop)?.name == "front")
        // No fold known: a base camera facing front counts as facing the user, first in the list.
        #expect(Self.pick([Self.world, Self.front], memory) == .init(name: "world", rule: .facingUser))
    }

    @Test("a camera plugged in is recommended to every user until that user chooses after it came; null is not a choice")
    func arrivalUntilAChoiceAfterIt() {
        var memory = CameraMemory()
        memory.observe([Self.front, Self.ir], now: 0)
        memory.choose(Self.ir.identity, for: 1001)
        let plugged = [Self.front, Self.ir, Self.webcam]
        memory.observe(plugged, now: 10)
        // Both users: the webcam, whatever they chose before it came.
        #expect(Self.pick(plugged, memory, uid: 1000) == .init(name: "external", rule: .arrival))
        #expect(Self.pick(plugged, memory, uid: 1001) == .init(name: "external", rule: .arrival))
        // A choice made after: that user's choice wins, even an infrared camera; the other user keeps the webcam.
        memory.choose(Self.ir.identity, for: 1001)
        #expect(Self.pick(plugged, memory, uid: 1001) == .init(name: "front2", rule: .choice))
        #expect(Self.pick(plugged, memory, uid: 1000) == .init(name: "external", rule: .arrival))
        // Forgetting the choice is not a choice: the webcam again.
        memory.choose(nil, for: 1001)
        #expect(Self.pick(plugged, memory, uid: 1001) == .init(name: "external", rule: .arrival))
        // Unplugged: back to the built-in camera facing the user.
        memory.observe([Self.front, Self.ir], now: 20)
        #expect(Self.pick([Self.front, Self.ir], memory, uid: 1000) == .init(name: "front", rule: .facingUser))
    }

    @Test("an infrared camera plugged in is not recommended; the arrival before it is")
    func infraredArrivalSetApart() {
        var memory = CameraMemory()
        memory.observe([Self.front], now: 0)
        memory.observe([Self.front, Self.webcam], now: 5)
        memory.observe([Self.front, Self.webcam, Self.ir], now: 10)
        #expect(memory.arrival(among: [Self.front, Self.webcam, Self.ir])?.name == "external")
        #expect(Self.pick([Self.front, Self.webcam, Self.ir], memory) == .init(name: "external", rule: .arrival))
    }

    @Test("cameras present at the very first look are not arrivals; at a later start, one not seen before is")
    func firstLookIsNoArrival() {
        var first = CameraMemory()
        first.observe([Self.front, Self.webcam], now: 0)
        #expect(first.arrival(among: [Self.front, Self.webcam]) == nil)
        // The next run reads what this one kept: the webcam plugged in while the service was stopped is an arrival,
        // the known front camera is not.
        var next = CameraMemory.read(Array(first.text.utf8)).memory
        next.observe([Self.front, Self.webcam, Self.webcam2], now: 0)
        #expect(next.arrival(among: [Self.front, Self.webcam, Self.webcam2])?.name == "external2")
        // A camera the last run saw attached, enumerated after this run's first look (a boot): the same as before,
        // within 30 s; later, an arrival.
        var booted = CameraMemory.read(Array(first.text.utf8)).memory
        booted.observe([Self.front], now: 100)
        booted.observe([Self.front, Self.webcam], now: 125)
        #expect(booted.arrival(among: [Self.front, Self.webcam]) == nil)
        var late = CameraMemory.read(Array(first.text.utf8)).memory
        late.observe([Self.front], now: 100)
        late.observe([Self.front, Self.webcam], now: 131)
        #expect(late.arrival(among: [Self.front, Self.webcam])?.name == "external")
    }

    @Test("a camera back within 5 s of the monotonic clock (a dock re-enumerating, a system sleep) is the same arrival; later, a new one")
    func quickReturnIsNoArrival() {
        var memory = CameraMemory()
        memory.observe([Self.front], now: 0)
        memory.choose(Self.front.identity, for: 1000)
        // The webcam was there before the choice: the choice wins.
        memory.observe([Self.front, Self.webcam], now: 1)
        memory.choose(Self.front.identity, for: 1000)
        #expect(Self.pick([Self.front, Self.webcam], memory) == .init(name: "front", rule: .choice))
        memory.observe([Self.front], now: 100)
        memory.observe([Self.front, Self.webcam], now: 104.5)
        #expect(Self.pick([Self.front, Self.webcam], memory) == .init(name: "front", rule: .choice), "back within 5 s")
        memory.observe([Self.front], now: 200)
        memory.observe([Self.front, Self.webcam], now: 205.5)
        #expect(Self.pick([Self.front, Self.webcam], memory) == .init(name: "external", rule: .arrival), "back after 5.5 s")
    }

    @Test("a choice names the physical camera: found again on the same port under another name and node, never another unit of one model")
    func choiceFollowsTheCamera() {
        var memory = CameraMemory()
        memory.observe([Self.front, Self.webcam, Self.webcam2], now: 0)
        memory.choose(Self.webcam.identity, for: 1000)
        // Renamed and renumbered after a re-plug on the same port: still the choice.
        var again = Self.webcam
        again.name = "external3"
        again.device = "/dev/video9"
        again.nodes = ["/dev/video9"]
        #expect(Self.pick([Self.front, Self.webcam2, again], memory) == .init(name: "external3", rule: .choice))
        // Only the other unit there: the choice is not it.
        #expect(Self.pick([Self.front, Self.webcam2], memory) == .init(name: "front", rule: .facingUser))
        #expect(Self.webcam.identity != Self.webcam2.identity)
        #expect(Self.front.identity.hasPrefix("libcamera:") && Self.webcam.identity == "bus:pci-0000:00:14.0-usb-0:1:1.0")
        #expect(Camera(name: "spare", facing: .back, mount: 0).identity == "name:spare")
    }

    @Test("the memory as text round-trips; a damaged line loses only its own record; a file with nothing readable is a first start")
    func textSurvivesDamage() {
        var memory = CameraMemory()
        memory.observe([Self.front], now: 0)
        memory.observe([Self.front, Self.webcam], now: 1)
        memory.choose(Self.front.identity, for: 1000)
        memory.choose(Self.back.identity, for: 1001)
        let read = CameraMemory.read(Array(memory.text.utf8))
        #expect(read.problems.isEmpty)
        #expect(read.memory.choices == memory.choices && read.memory.cameras == memory.cameras && read.memory.counter == memory.counter)
        // One user's record cut in half and a line of garbage: the other records stay.
        var lines = memory.text.split(separator: "\n").map(String.init)
        let cut = lines.firstIndex { $0.contains("\"uid\":1000") }!
        lines[cut] = String(lines[cut].prefix(20))
        lines.insert("\u{0}\u{1}garbage", at: 1)
        let damaged = CameraMemory.read(Array(lines.joined(separator: "\n").utf8))
        #expect(damaged.problems.count == 2, "\(damaged.problems)")
        #expect(damaged.memory.choice(for: 1000) == nil && damaged.memory.choice(for: 1001) == memory.choice(for: 1001))
        #expect(!damaged.memory.firstLook)
        // Garbage throughout: nothing remembered, so the next look is a first look.
        let garbage = CameraMemory.read(Array("not json\n{\"uid\":\"x\"}\n".utf8))
        #expect(garbage.memory.firstLook && garbage.problems.count == 2)
        // The counter never goes back behind the orders it holds, whatever the header says.
        let behind = CameraMemory.read(Array(#"{"format":"rotationd-camera-memory","version":1,"counter":1}\#n{"uid":5,"camera":"name:x","order":40}"#.utf8))
        #expect(behind.memory.counter == 40)
    }

    @Test("bounded however many users choose and cameras come: the oldest choices and detached cameras are forgotten")
    func bounded() {
        var memory = CameraMemory()
        memory.observe([Self.front], now: 0)
        for uid in 0..<UInt32(CameraMemory.maxUsers + 50) { memory.choose(Self.front.identity, for: uid) }
        #expect(memory.choices.count == CameraMemory.maxUsers)
        #expect(memory.choice(for: 0) == nil && memory.choice(for: UInt32(CameraMemory.maxUsers + 49)) != nil)
        for i in 0..<(CameraMemory.maxCameras + 30) {
            let cam = Camera(name: "external", facing: .external, mount: 0, source: .default, busPath: "usb-port-\(i)")
            memory.observe([Self.front, cam], now: Double(10 + i * 10))
        }
        #expect(memory.cameras.count == CameraMemory.maxCameras)
        #expect(memory.cameras[Self.front.identity]?.attached == true)
        #expect(memory.text.utf8.count < CameraMemory.maxTextBytes)
    }
}
