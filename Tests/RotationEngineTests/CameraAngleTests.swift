import Testing
@testable import RotationEngine
import RotationProtocol

@Suite("Camera angles")
struct CameraAngleTests {
    @Test("default cameras give the exact front/back table, with the back-camera flip")
    func defaultTable() {
        let front = Camera.defaults[0], back = Camera.defaults[1]
        let expected: [(Rotation, Int, Int)] = [(.normal, 90, 90), (.leftUp, 0, 180), (.bottomUp, 270, 270), (.rightUp, 180, 0)]
        for (r, f, b) in expected {
            #expect(front.captureAngle(for: r) == f, "front at \(r.degrees)")
            #expect(back.captureAngle(for: r) == b, "back at \(r.degrees)")
        }
    }

    @Test("an external camera keeps its mount whatever the rotation")
    func externalIgnoresRotation() {
        let usb = Camera(name: "usb", facing: .external, mount: 270)
        for r in Rotation.allCases { #expect(usb.captureAngle(for: r) == 270) }
    }

    @Test("for mounts 90 and 270 the back angle is the front angle with 0 and 180 swapped")
    func backCameraFlip() {
        func swapped(_ a: Int) -> Int { a == 0 ? 180 : (a == 180 ? 0 : a) }
        for mount in [90, 270] {
            let f = Camera(name: "f", facing: .front, mount: mount), b = Camera(name: "b", facing: .back, mount: mount)
            for r in Rotation.allCases {
                #expect(b.captureAngle(for: r) == swapped(f.captureAngle(for: r)), "mount \(mount) rotation \(r.degrees)")
            }
        }
    }

    @Test("preview angle follows the documented formulas and is the mount when the UI follows the device")
    func previewAngle() {
        let front = Camera.defaults[0], back = Camera.defaults[1]
        #expect(back.previewAngle(for: .leftUp, interfaceRotation: 0) == 180)
        #expect(front.previewAngle(for: .leftUp, interfaceRotation: 0) == 0)
        #expect(back.previewAngle(for: .normal, interfaceRotation: 90) == 0)
        #expect(front.previewAngle(for: .normal, interfaceRotation: 90) == 180)
        for r in Rotation.allCases {
            #expect(front.previewAngle(for: r, interfaceRotation: r.degrees) == 90)
            #expect(back.previewAngle(for: r, interfaceRotation: r.degrees) == 90)
        }
    }

    @Test("EXIF Orientation for a clockwise capture angle: 0 → 1, 90 → 6, 180 → 3, 270 → 8, for every facing and rotation")
    func exifOrientation() {
        #expect([0, 90, 180, 270, 360, -90].map(Camera.exifOrientation(captureAngle:)) == [1, 6, 3, 8, 1, 8])
        for facing in CameraFacing.allCases {
            for mount in [0, 90, 180, 270] {
                let cam = Camera(name: "c", facing: facing, mount: mount)
                for rotation in [Rotation.normal, .leftUp, .bottomUp, .rightUp] {
                    let want = [0: 1, 90: 6, 180: 3, 270: 8][cam.captureAngle(for: rotation)]
                    #expect(cam.exifOrientation(for: rotation) == want)
                }
            }
        }
    }

    @Test("the turn left once a program applies the mount is r for a back camera, 360 − r for a front one and 0 for an external one")
    func deviceTurn() {
        for rotation in [Rotation.normal, .leftUp, .bottomUp, .rightUp] {
            let r = rotation.degrees
            for mount in [0, 90, 180, 270] {
                #expect(Camera(name: "b", facing: .back, mount: mount).deviceTurn(for: rotation) == r)
                #expect(Camera(name: "f", facing: .front, mount: mount).deviceTurn(for: rotation) == (360 - r) % 360)
                #expect(Camera(name: "e", facing: .external, mount: mount).deviceTurn(for: rotation) == 0)
                // Applying the mount, then the device turn, is the capture angle.
                let cam = Camera(name: "f", facing: .front, mount: mount)
                #expect((mount + cam.deviceTurn(for: rotation)) % 360 == cam.captureAngle(for: rotation))
            }
        }
    }
}
