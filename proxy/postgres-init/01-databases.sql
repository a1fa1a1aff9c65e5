-- Run once by the postgres image on an empty data volume: one database per service.
CREATE DATABASE images;
CREATE DATABASE tools;
