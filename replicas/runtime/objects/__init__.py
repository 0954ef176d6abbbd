"""A product whose records are objects with property bags (HubSpot's CRM): its object types
(``schema``), records read and written by property name (``records``, ``properties``,
``render``), cursor paging (``cursor``), search (``search``), batches (``batch``), associations
between records (``associations``), pipelines and owners (``pipelines``, ``owners``), and the
product's error body (``errors``). A compiled app's routes call these; its pages too."""
