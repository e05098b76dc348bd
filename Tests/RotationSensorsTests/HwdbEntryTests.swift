import Glibc
@testable import RotationSensors
import Testing

@Suite("hwdb keys, entries and the local file")
struct HwdbEntryTests {
    static let dmi = "dmi:bvnAmericanMegatrendsInc.:bvr5.11:bd05/07/2016:br5.11:svnONDA:pnV975w:pvrV1.0:rvnONDA:rnV975w:rvrDefaultstring:cvnDefaultstring:ct10:cvrDefaultstring:skuV975W:"
    static let onda = HwdbKey(label: nil, name: "accel_3d", location: nil, modalias: "acpi:BOSC0200:BOSC0200:", dmi: dmi)

    @Test("the lookup key is the one 60-sensor.rules composes: sensor:modalias:<parent modalias>:<DMI modalias>")
    func lookupKey() {
        #expect(Self.onda.lookup == "sensor:modalias:acpi:BOSC0200:BOSC0200::" + Self.dmi)
    }

    @Test("a sensor with a label is looked up by it, and a cros-ec sensor by its location when it has no label")
    func labelledKeys() {
        #expect(HwdbKey(label: "accel-display", name: "bmc150_accel", location: nil, modalias: "i2c:x", dmi: nil).lookup == "sensor:accel-display:modalias:i2c:x:")
        #expect(HwdbKey(label: nil, name: "cros-ec-accel", location: "base", modalias: "platform:cros-ec-accel", dmi: nil).prefix == "sensor:accel-base:")
        #expect(HwdbKey(label: nil, name: "cros-ec-accel-legacy", location: "lid", modalias: "platform:cros-ec-accel-legacy", dmi: nil).prefix == "sensor:accel-display:")
        #expect(HwdbKey(label: "", name: "x", location: "base", modalias: "i2c:x", dmi: nil).prefix == "sensor:")
    }

    @Test("the match line keeps the ACPI id and the system's vendor, product and version, drops the firmware's fields, and matches the key")
    func narrowedMatch() {
        #expect(Self.onda.match == "sensor:modalias:acpi:BOSC0200*:dmi:*:svnONDA:pnV975w:pvrV1.0:*")
        #expect(Self.onda.isMatched(by: Self.onda.match))
        #expect(!Self.onda.match.contains("bvn") && !Self.onda.match.contains("bvr") && !Self.onda.match.contains("bd0"))
        #expect(Self.onda.machine == "ONDA V975w V1.0")
    }

    @Test("a placeholder product name brings in the board and the SKU; a placeholder version is left out", arguments: [
        ("dmi:bvnINSYDE:bvr1:svnAcme:pnDefaultstring:pvrDefaultstring:rvnAcme:rnFlip11:rvr1:skuF11:", "dmi:*:svnAcme:pnDefaultstring:*:rvnAcme:rnFlip11:*:skuF11:*"),
        ("dmi:bvnX:svnAcme:pnTobefilledbyO.E.M.:pvr1.0:rvnAcme:rnB1:", "dmi:*:svnAcme:pnTobefilledbyO.E.M.:pvr1.0:rvnAcme:rnB1:*"),
        ("dmi:svnAcme:pnTab*8?:pvrDefaultstring:", "dmi:svnAcme:pnTab?8?:*"),
        ("dmi:bvnX:bvrY:", "dmi:*"),
    ])
    func placeholders(dmi: String, expected: String) {
        let key = HwdbKey(label: nil, name: "x", location: nil, modalias: "acpi:KIOX020A:KIOX020A:", dmi: dmi)
        #expect(key.match == "sensor:modalias:acpi:KIOX020A*:" + expected)
        #expect(key.isMatched(by: key.match), "\(key.match) against \(key.lookup)")
    }

    @Test("other buses' modaliases are kept whole, and without DMI the line ends in a wildcard", arguments: [
        ("platform:HID-SENSOR-200073", "sensor:modalias:platform:HID-SENSOR-200073:*"),
        ("of:NaccelerometerT(null)Cbosch,bma250e", "sensor:modalias:of:NaccelerometerT(null)Cbosch,bma250e:*"),
        ("i2c:mxc4005", "sensor:modalias:i2c:mxc4005:*"),
    ])
    func otherBuses(modalias: String, expected: String) {
        let key = HwdbKey(label: nil, name: "x", location: nil, modalias: modalias, dmi: nil)
        #expect(key.match == expected)
        #expect(key.isMatched(by: key.match))
    }

    static func entry(_ key: HwdbKey = onda, _ matrix: String = "0, -1, 0; -1, 0, 0; 0, 0, 1", base: Bool = false) throws -> HwdbEntry {
        HwdbEntry(key: key, matrix: try MountMatrix.parse(matrix), location: base ? .base : .display, sensorName: "bmc150_accel")
    }

    @Test("an entry is a comment, the match line, and each property after one space; a base's says ACCEL_LOCATION=base")
    func entryText() throws {
        #expect(try Self.entry().lines == [
            "# ONDA V975w V1.0: display accelerometer (bmc150_accel), from rotationd --fix-mount",
            "sensor:modalias:acpi:BOSC0200*:dmi:*:svnONDA:pnV975w:pvrV1.0:*",
            " ACCEL_MOUNT_MATRIX=0, -1, 0; -1, 0, 0; 0, 0, 1",
        ])
        #expect(try Self.entry(base: true).properties == ["ACCEL_MOUNT_MATRIX=0, -1, 0; -1, 0, 0; 0, 0, 1", "ACCEL_LOCATION=base"])
    }

    @Test("a new file gets a header and the entry")
    func newFile() throws {
        let file = HwdbFile(merging: [try Self.entry()], into: "")
        #expect(file.text == HwdbFile.header.joined(separator: "\n") + "\n\n" + (try Self.entry()).text)
        #expect(file.replaced.isEmpty)
    }

    static let existing = """
        # Local quirks

        # the keyboard's backlight
        evdev:atkbd:dmi:*:svnONDA:*
         KEYBOARD_KEY_f8=f21

        # old try, by hand
        sensor:modalias:acpi:*:dmi:*:svnONDA:pnV975w:*
         ACCEL_MOUNT_MATRIX=1, 0, 0; 0, 1, 0; 0, 0, 1
         ANGLVEL_MOUNT_MATRIX=1, 0, 0; 0, 1, 0; 0, 0, 1

        sensor:modalias:acpi:KIOX000A*:dmi:*:svnOther:*
        sensor:modalias:acpi:BOSC0200*:dmi:*:svnONDA:*
         ACCEL_MOUNT_MATRIX=-1, 0, 0; 0, 1, 0; 0, 0, 1

        """

    @Test("merging replaces every match line of this sensor with the new entry, keeps the other entries and the other match lines of a shared record, and carries the gyroscope's matrix over")
    func mergeReplaces() throws {
        let file = HwdbFile(merging: [try Self.entry()], into: Self.existing)
        #expect(file.replaced == ["sensor:modalias:acpi:*:dmi:*:svnONDA:pnV975w:*", "sensor:modalias:acpi:BOSC0200*:dmi:*:svnONDA:*"])
        let expected = """
            # Local quirks

            # the keyboard's backlight
            evdev:atkbd:dmi:*:svnONDA:*
             KEYBOARD_KEY_f8=f21

            sensor:modalias:acpi:KIOX000A*:dmi:*:svnOther:*
             ACCEL_MOUNT_MATRIX=-1, 0, 0; 0, 1, 0; 0, 0, 1

            # ONDA V975w V1.0: display accelerometer (bmc150_accel), from rotationd --fix-mount
            sensor:modalias:acpi:BOSC0200*:dmi:*:svnONDA:pnV975w:pvrV1.0:*
             ACCEL_MOUNT_MATRIX=0, -1, 0; -1, 0, 0; 0, 0, 1
             ANGLVEL_MOUNT_MATRIX=1, 0, 0; 0, 1, 0; 0, 0, 1

            """
        #expect(file.text == expected, "\(file.text)")
        // Merging again replaces the entry just written, and nothing else.
        let again = HwdbFile(merging: [try Self.entry(Self.onda, "1, 0, 0; 0, 1, 0; 0, 0, 1")], into: file.text)
        #expect(again.replaced == [Self.onda.match])
        #expect(again.text.components(separatedBy: "sensor:modalias:acpi:BOSC0200*").count == 2)
        #expect(again.text.contains("KEYBOARD_KEY_f8=f21") && again.text.contains("svnOther"))
    }

    @Test("a display's and a base's entries on one machine do not replace each other")
    func displayAndBase() throws {
        let base = HwdbKey(label: nil, name: "x", location: nil, modalias: "acpi:KIOX020A:KIOX020A:", dmi: Self.dmi)
        let first = HwdbFile(merging: [try Self.entry(), try Self.entry(base, "1, 0, 0; 0, -1, 0; 0, 0, -1", base: true)], into: "")
        let second = HwdbFile(merging: [try Self.entry(base, "-1, 0, 0; 0, -1, 0; 0, 0, 1", base: true)], into: first.text)
        #expect(second.replaced == [base.match])
        #expect(second.text.contains(Self.onda.match) && second.text.contains("ACCEL_MOUNT_MATRIX=-1, 0, 0; 0, -1, 0; 0, 0, 1"))
        #expect(!second.text.contains("ACCEL_MOUNT_MATRIX=1, 0, 0; 0, -1, 0; 0, 0, -1"))
    }
}
