import RotationEngine
print("rotwatch: not connected")
