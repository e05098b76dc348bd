/* A QtSensors backend plugin for rotationd: a QOrientationSensor with the identifier "rotationd.orientation",
 * fed by librotationd on the program's own event loop (Docs/qt.md).
 *
 * The plugin registers the backend when QtSensors loads it from its plugins/sensors directory. A sensor started
 * with that identifier, or started without one on a system whose Sensors.conf names it the default, subscribes to
 * the service; stopping the sensor closes the subscription. */
#ifndef ROTATIOND_QT_SENSORS_H
#define ROTATIOND_QT_SENSORS_H

#include <QtCore/QObject>
#include <QtCore/QTimer>
#include <QtSensors/QOrientationReading>
#include <QtSensors/QSensorBackend>
#include <QtSensors/QSensorBackendFactory>
#include <QtSensors/QSensorPluginInterface>

class QSocketNotifier;
struct rotationd;

/* The orientation backend: one librotationd handle while the sensor runs, its file descriptor watched by a
 * QSocketNotifier, and a timer that reports a missing service through sensorError(ENOTCONN). The library
 * reconnects by itself when the service comes back; readings then resume. */
class RotationdOrientationBackend : public QSensorBackend {
    Q_OBJECT
public:
    /* The identifier QtSensors knows the backend by. */
    static const char *const identifier;

    explicit RotationdOrientationBackend(QSensor *sensor);
    ~RotationdOrientationBackend() override;

    void start() override;
    void stop() override;

private Q_SLOTS:
    /* The handle's descriptor is readable: takes what the service sent and reports a new orientation. */
    void dispatch();
    /* Reports a service that is not there, once for each time it goes missing. */
    void checkConnection();

private:
    void close();
    void report();

    QOrientationReading reading_;
    rotationd *client_ = nullptr;
    QSocketNotifier *notifier_ = nullptr;
    QTimer watchdog_;
    /* The last orientation reported since connecting, or -1. */
    int last_ = -1;
    bool connected_ = false;
    bool errorReported_ = false;
};

/* The plugin: registers the backend for QOrientationSensor and makes it for a sensor that asks for it. */
class RotationdSensorPlugin : public QObject, public QSensorPluginInterface, public QSensorBackendFactory {
    Q_OBJECT
    Q_PLUGIN_METADATA(IID "com.qt-project.Qt.QSensorPluginInterface/1.0")
    Q_INTERFACES(QSensorPluginInterface)
public:
    void registerSensors() override;
    QSensorBackend *createBackend(QSensor *sensor) override;
};

#endif
