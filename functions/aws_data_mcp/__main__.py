from aws_data_mcp.cli import main

main()
