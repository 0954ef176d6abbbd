"""The checkout's wire models: ``requests`` (the bodies Stripe's API and the store's take),
``stripe`` (the Stripe objects it answers), ``store`` (the store's own records as its API
answers them)."""
