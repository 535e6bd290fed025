"""Demo mode and local runs: stand-ins for the AWS pieces around the server, on one machine.

An embedded emulated AWS account (moto, in-process: ``account``) seeded with a small data lake (``seed`` from
``seed_data``), what moto lacks of AWS (``moto_extensions``), a local API Gateway front (``gateway``,
``hosted_front``) and Lambda's context object (``lambda_context``). Lets a newcomer see every resource return
real-looking data without an AWS account. Nothing here ships in the Lambda package or is imported on the Lambda
path; importing this package loads nothing, so ``lambda_context`` works without the ``demo`` extra
(``moto[server]``) that the other modules need.
"""
