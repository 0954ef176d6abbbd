"""Replicas of enterprise apps. Every app is a package of the same shape; see runtime/."""
