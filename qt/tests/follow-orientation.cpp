/* A QtSensors program for the tests of the rotationd backend (scripts/test-c.sh, part qt): it starts a
 * QOrientationSensor and prints, one line each, what the sensor does.
 *
 *     follow-orientation [--identifier ID] [--seconds N] [--decoy]
 *
 * Without --identifier the sensor takes QtSensors' default for QOrientationSensor (Sensors.conf). --decoy first
 * registers a backend of its own, "decoy.orientation", which gives no reading: registered before any plugin's, it
 * is the default unless Sensors.conf names another. Lines:
 *     backend ID                 the backend the sensor connected to
 *     reading NOW T ORIENTATION  a reading: NOW the moment it came and T its timestamp, both CLOCK_MONOTONIC
 *                                microseconds, and the orientation's name
 *     error CODE                 the backend reported sensorError(CODE)
 * It exits 0 after N seconds (default 10), or 1 when the sensor has no backend. */
#include <QtCore/QCoreApplication>
#include <QtCore/QTimer>
#include <QtSensors/QOrientationSensor>
#include <QtSensors/QSensorBackend>
#include <QtSensors/QSensorBackendFactory>
#include <QtSensors/QSensorManager>

#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <ctime>

static unsigned long long monotonicMicros() {
    struct timespec now;
    clock_gettime(CLOCK_MONOTONIC, &now);
    return (unsigned long long)now.tv_sec * 1000000u + (unsigned long long)(now.tv_nsec / 1000);
}

static const char *name(QOrientationReading::Orientation o) {
    switch (o) {
    case QOrientationReading::TopUp: return "TopUp";
    case QOrientationReading::TopDown: return "TopDown";
    case QOrientationReading::LeftUp: return "LeftUp";
    case QOrientationReading::RightUp: return "RightUp";
    case QOrientationReading::FaceUp: return "FaceUp";
    case QOrientationReading::FaceDown: return "FaceDown";
    default: return "Undefined";
    }
}

/* A backend that gives no reading. */
class DecoyBackend : public QSensorBackend {
public:
    explicit DecoyBackend(QSensor *sensor) : QSensorBackend(sensor) { setReading<QOrientationReading>(&reading_); }
    void start() override {}
    void stop() override {}

private:
    QOrientationReading reading_;
};

class DecoyFactory : public QSensorBackendFactory {
public:
    QSensorBackend *createBackend(QSensor *sensor) override { return new DecoyBackend(sensor); }
};

int main(int argc, char **argv) {
    QCoreApplication app(argc, argv);
    QByteArray identifier;
    double seconds = 10;
    for (int i = 1; i < argc; i++) {
        if (strcmp(argv[i], "--identifier") == 0 && i + 1 < argc) identifier = argv[++i];
        else if (strcmp(argv[i], "--seconds") == 0 && i + 1 < argc) seconds = atof(argv[++i]);
        else if (strcmp(argv[i], "--decoy") == 0) {
            static DecoyFactory decoy;
            QSensorManager::registerBackend(QOrientationSensor::sensorType, "decoy.orientation", &decoy);
        }
        else {
            fprintf(stderr, "usage: follow-orientation [--identifier ID] [--seconds N] [--decoy]\n");
            return 2;
        }
    }
    setvbuf(stdout, nullptr, _IOLBF, 0);
    QOrientationSensor sensor;
    if (!identifier.isEmpty()) sensor.setIdentifier(identifier);
    QObject::connect(&sensor, &QSensor::readingChanged, [&sensor] {
        QOrientationReading *r = sensor.reading();
        printf("reading %llu %llu %s\n", monotonicMicros(), (unsigned long long)r->timestamp(), name(r->orientation()));
    });
    QObject::connect(&sensor, &QSensor::sensorError, [](int error) { printf("error %d\n", error); });
    if (!sensor.connectToBackend()) {
        fprintf(stderr, "follow-orientation: no QOrientationSensor backend%s%s; is QT_PLUGIN_PATH the directory above "
                        "sensors/librotationdsensors.so?\n", identifier.isEmpty() ? "" : " with the identifier ", identifier.constData());
        return 1;
    }
    printf("backend %s\n", sensor.identifier().constData());
    sensor.start();
    QTimer::singleShot(int(seconds * 1000), &app, &QCoreApplication::quit);
    return app.exec();
}
