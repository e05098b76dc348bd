import Glibc
import RotationSensors

extension MountFix {
    /// Installs `merged` with consent, or says how to; whether it was installed (and checked).
    func install(_ merged: HwdbFile, _ fixed: [Measured], existed: Bool) throws(MountFixError) -> Bool {
        let devices = fixed.map(\.sensor.id)
        let asRoot = geteuid() == 0
        let commands = MountFixText.commands(merged, path: installer.path, existed: existed, devices: devices, asRoot: asRoot)
        if installer.live && !asRoot {
            console.paragraph("Not installed: writing \(installer.path) and reloading udev need root. Run sudo rotationd --fix-mount to measure again and install it, or install this entry yourself with these commands:")
            console.say()
            console.say(commands)
            if assumeYes { throw .notRoot(path: installer.path) }
            return false
        }
        let scratch = installer.live ? "" : " (under \(installer.root), not the running system)"
        guard assumeYes || console.ask("Install it in \(installer.path)\(scratch) and reload udev's database?") else {
            let why = console.interactive ? "" : " (give --yes to install without a question)"
            console.paragraph("Not installed\(why). To install it yourself, run:")
            console.say()
            console.say(commands)
            return false
        }
        try installer.write(merged.text)
        console.paragraph("Wrote \(installer.path)" + (merged.replaced.isEmpty ? "." : ", replacing: " + merged.replaced.joined(separator: ", ")))
        try runCommand(installer.update)
        if installer.live {
            for device in devices { try runCommand(installer.trigger(device)) }
        }
        for m in fixed { try check(m) }
        if installer.live {
            console.paragraph("The rotationd service reads the matrix when it opens the sensor: systemctl restart rotationd.service applies it now (iio-sensor-proxy likewise: systemctl restart iio-sensor-proxy.service).")
        }
        return true
    }

    private func runCommand(_ command: ChildCommand) throws(MountFixError) {
        try installer.run(command)
        console.paragraph("Ran \(command.text).")
    }

    /// Reads the matrix of `m`'s sensor back from the installed database and checks it with one pose.
    private func check(_ m: Measured) throws(MountFixError) {
        let (matrix, source) = try installer.installedMatrix(m.entry, device: m.sensor.id)
        let fromEntry = !installer.live || source.hasPrefix("udev ACCEL_MOUNT_MATRIX")
        guard let matrix, matrix == m.entry.matrix, fromEntry else {
            throw .notApplied(device: m.sensor.id, expected: "ACCEL_MOUNT_MATRIX=\(m.entry.matrix)",
                              got: matrix.map { "\($0) (from \(source))" } ?? "no matrix from \(source)", key: m.entry.key.lookup)
        }
        console.paragraph("\(m.sensor.id) now gets ACCEL_MOUNT_MATRIX=\(matrix) from \(source).")
        let pose = MountPose.check(for: m.sensor.location)
        console.say()
        console.paragraph("Check: \(pose.instruction)")
        try PoseSession(sensor: m.reader, console: console).check(pose, through: matrix, leaving: m.last)
        console.paragraph("it reads \(pose.name) through the new matrix: fixed.", indent: "  ")
    }
}
