import RotationEngine
print("engine-bench: pending")
