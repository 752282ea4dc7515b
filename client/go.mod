module github.com/sello-do/sello/client

go 1.25
